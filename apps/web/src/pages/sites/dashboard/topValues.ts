/** How a top-table value reads: countries by name, no value as what it means for the dimension. */
const regions = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'region' });
  } catch {
    return null;
  }
})();

const NONE: Record<string, string> = {
  source: 'Direct / none',
  referrer: 'Direct / none',
  language: 'Unknown',
  timezone: 'Unknown',
  screen: 'Unknown',
  country: 'Unknown',
  device: 'Unknown',
  browser: 'Unknown',
  browser_version: 'Unknown',
  os: 'Unknown',
  os_version: 'Unknown',
  bot: 'Unnamed',
  category: 'Uncategorised',
  network: 'Unknown network',
};

/** Screen size classes (the API's `screen` values) with the window widths they stand for. */
const SCREENS: Record<string, string> = {
  mobile: 'Mobile (under 576 px)',
  tablet: 'Tablet (576–991 px)',
  laptop: 'Laptop (992–1439 px)',
  desktop: 'Desktop (1440 px and wider)',
};

export function valueLabel(dimension: string, value: string | null): string {
  if (value === null || value === '') return NONE[dimension] ?? '(none)';
  if (dimension === 'country' && /^[A-Z]{2}$/.test(value)) {
    const name = regions?.of(value);
    return name && name !== value ? `${name} (${value})` : value;
  }
  if (dimension === 'device') return value.charAt(0).toUpperCase() + value.slice(1);
  if (dimension === 'screen') return SCREENS[value] ?? value;
  return value;
}

/** "IP Geolocation by DB-IP (https://db-ip.com)" → its text and link. */
export function splitAttribution(text: string): { label: string; href: string | null } {
  const m = /^(.*?)\s*\((https?:\/\/[^)\s]+)\)\s*$/.exec(text);
  return m ? { label: m[1] ?? text, href: m[2] ?? null } : { label: text, href: null };
}
