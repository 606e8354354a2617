// Request and answer schemas of this resource (spec §2 and §4).
export {};
