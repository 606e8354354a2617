// Country names, as Google Analytics 4 reports them in English, to the ISO 3166-1 alpha-2 codes intake
// stores. Built once from the Unicode CLDR names Node's Intl carries (full ICU since Node 13): GA4's names
// are CLDR's ("Bosnia & Herzegovina", "Côte d’Ivoire", "Myanmar (Burma)", "Türkiye"), in their long or short
// form ("Hong Kong" for "Hong Kong SAR China"), plus a few older names still found in older downloads.

/** Names GA4 used before CLDR renamed the country, and other spellings seen in its downloads. */
const OLDER_NAMES: Record<string, string> = {
  turkey: 'TR',
  'czech republic': 'CZ',
  macedonia: 'MK',
  'macedonia (fyrom)': 'MK',
  swaziland: 'SZ',
  'cape verde': 'CV',
  'ivory coast': 'CI',
  burma: 'MM',
  'united states of america': 'US',
  'palestinian territories': 'PS',
  'hong kong sar china': 'HK',
  'macao sar china': 'MO',
  macau: 'MO',
};

/** Codes ICU names that are no country of a visit (groupings and placeholders). */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ']);

/** Case, accents, apostrophes and "&"/"and" folded: "Cote d'Ivoire" and "Côte d’Ivoire" meet. */
function fold(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[’‘`]/g, "'")
      // Spaces collapsed before "&" is read: `\s*&\s*` over a run of spaces tried every split of it (quadratic).
      .replace(/\s+/g, ' ')
      .replace(/ ?& ?/g, ' and ')
      .trim()
  );
}

let byName: Map<string, string> | null = null;

function names(): Map<string, string> {
  if (byName) return byName;
  const map = new Map<string, string>();
  const long = new Intl.DisplayNames(['en'], { type: 'region' });
  const short = new Intl.DisplayNames(['en'], { type: 'region', style: 'short' });
  const A = 'A'.charCodeAt(0);
  for (let i = 0; i < 26 * 26; i++) {
    const code = String.fromCharCode(A + Math.floor(i / 26), A + (i % 26));
    // Retired codes ICU still names (BU for Myanmar, DD, YU, ZR…) are canonicalised to today's: skip them.
    if (NOT_COUNTRIES.has(code) || new Intl.Locale(`und-${code}`).region !== code) continue;
    for (const display of [long, short]) {
      const name = display.of(code);
      // ICU answers the code itself for a code it does not know.
      if (name && name !== code && !map.has(fold(name))) map.set(fold(name), code);
    }
  }
  for (const [name, code] of Object.entries(OLDER_NAMES)) map.set(fold(name), code);
  byName = map;
  return map;
}

/** The two-letter code of a country's English name (or of a code itself), or null for a name no list knows. */
/** No country's name is longer (the longest English ones are about 45 characters). */
const LONGEST_NAME = 100;

export function countryCode(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed.length > LONGEST_NAME) return null;
  // Names first: "UK" is CLDR's short name of GB, not a code.
  const known = names().get(fold(trimmed));
  if (known) return known;
  return /^[A-Za-z]{2}$/.test(trimmed) ? trimmed.toUpperCase() : null;
}
