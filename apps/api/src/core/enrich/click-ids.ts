/**
 * Ad click identifiers in a page URL, read at intake for the channel and never stored. Each kind is the
 * strongest one present: a search ad's id, a paid social ad's id, or Facebook's `fbclid` (which Facebook
 * also adds to organic links, so alone it says "social", not "paid").
 */
export type ClickKind = 'search' | 'paid-social' | 'facebook';

const KINDS: ReadonlyMap<string, ClickKind> = new Map([
  ['gclid', 'search'],
  ['gbraid', 'search'],
  ['wbraid', 'search'],
  ['msclkid', 'search'],
  ['dclid', 'search'],
  ['ttclid', 'paid-social'],
  ['li_fat_id', 'paid-social'],
  ['twclid', 'paid-social'],
  ['sccid', 'paid-social'],
  ['fbclid', 'facebook'],
]);

const RANK: Record<ClickKind, number> = { search: 0, 'paid-social': 1, facebook: 2 };

/** The strongest click id kind among a URL's query parameters (names in any case, empty values ignored). */
export function clickKindOf(params: URLSearchParams): ClickKind | null {
  let best: ClickKind | null = null;
  for (const [name, value] of params) {
    const kind = value ? KINDS.get(name.toLowerCase()) : undefined;
    if (kind && (best === null || RANK[kind] < RANK[best])) best = kind;
  }
  return best;
}
