/** The browser's own time zone (what a new site is most likely to want). */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

let groups: [region: string, zones: string[]][] | undefined;

/** Every IANA zone the browser knows, grouped by region (`Europe`, `America`, …), UTC first. */
export function timeZoneGroups(): [region: string, zones: string[]][] {
  if (groups) return groups;
  const byRegion = new Map<string, string[]>([['UTC', ['UTC']]]);
  for (const zone of Intl.supportedValuesOf('timeZone')) {
    if (zone === 'UTC') continue;
    const region = zone.includes('/') ? (zone.split('/')[0] as string) : 'Other';
    const list = byRegion.get(region) ?? [];
    list.push(zone);
    byRegion.set(region, list);
  }
  groups = [...byRegion.entries()];
  return groups;
}

/** The options, with `current` added when the browser does not list it (an alias such as Europe/Kyiv). */
export function zonesIncluding(current: string): [region: string, zones: string[]][] {
  const all = timeZoneGroups();
  if (!current || all.some(([, zones]) => zones.includes(current))) return all;
  return [['Current', [current]], ...all];
}
