// Browser, operating system and device names of other products turned into the names intake stores
// (core/enrich/software.ts BROWSERS and SYSTEMS, device.ts DeviceClass), so imported rows group with
// native ones. Names come from:
// - Umami: detect-browser's ids (`crios`, `edge-chromium`, `ios`…) and its OS names (`Mac OS`, `Android OS`,
//   `Windows 10`…), as src/lib/detect.ts and the BROWSERS / OS_NAMES tables of src/lib/constants.ts list them
//   (github.com/umami-software/umami, commit c0ea3aef, 2026-05-14); devices from ua-parser-js's types plus
//   Umami's `laptop` (a desktop with a screen up to 1920 px wide);
// - Google Analytics 4: the Browser, Operating system and Device category values of its Tech report.
// A name neither lists is "Other", as intake names software it does not know; an empty or "(not set)" value is
// '' (no value).
import { BROWSERS, type DeviceClass, SYSTEMS } from '../../../core/enrich/index.ts';

type Browser = (typeof BROWSERS)[number];
type System = (typeof SYSTEMS)[number];

const fold = (name: string) => name.trim().toLowerCase();

const BROWSER_NAMES: Record<string, Browser> = {
  // Umami (detect-browser ids)
  crios: 'Chrome',
  'edge-chromium': 'Edge',
  'edge-ios': 'Edge',
  fxios: 'Firefox',
  ios: 'Safari',
  'ios-webview': 'In-app browser',
  'chromium-webview': 'In-app browser',
  facebook: 'In-app browser',
  instagram: 'In-app browser',
  kakaotalk: 'In-app browser',
  samsung: 'Samsung Internet',
  'opera-mini': 'Opera',
  yandexbrowser: 'Yandex Browser',
  ie: 'Internet Explorer',
  // MIUI's browser is Chrome-based and says so: intake names it Chrome.
  miui: 'Chrome',
  // Google Analytics 4
  'android webview': 'In-app browser',
  'safari (in-app)': 'In-app browser',
  'microsoft edge': 'Edge',
  'opera mini': 'Opera',
  yabrowser: 'Yandex Browser',
  yandex: 'Yandex Browser',
  'uc browser': 'UC Browser',
  ucbrowser: 'UC Browser',
};

const SYSTEM_NAMES: Record<string, System> = {
  // Umami (detect-browser)
  'mac os': 'macOS',
  'android os': 'Android',
  // Amazon's Fire tablets run Android (software.ts says the same of Silk).
  'amazon os': 'Android',
  'chrome os': 'ChromeOS',
  // Google Analytics 4
  macintosh: 'macOS',
  'os x': 'macOS',
};

const DEVICES: Record<string, DeviceClass> = {
  desktop: 'desktop',
  laptop: 'desktop',
  mobile: 'mobile',
  tablet: 'tablet',
};

const unset = (name: string | undefined) => {
  const f = fold(name ?? '');
  return f === '' || f === '(not set)' || f === 'unknown';
};

/** A browser's name as intake stores it. */
export function browserName(name: string | undefined): string {
  if (unset(name)) return '';
  const f = fold(name as string);
  return BROWSER_NAMES[f] ?? BROWSERS.find((b) => b.toLowerCase() === f) ?? 'Other';
}

/** An operating system's name as intake stores it (versions are not kept: neither product's export has them apart). */
export function systemName(name: string | undefined): string {
  if (unset(name)) return '';
  const f = fold(name as string);
  // "Windows 10", "Windows XP"… but Windows Phone and Windows Mobile are no Windows (software.ts: Other).
  if (/^windows\b/.test(f)) return /^windows (phone|mobile|ce)\b/.test(f) ? 'Other' : 'Windows';
  return SYSTEM_NAMES[f] ?? SYSTEMS.find((s) => s.toLowerCase() === f) ?? 'Other';
}

/** A device class as intake stores it: desktop, mobile, tablet, else other (TVs, consoles, wearables…). */
export function deviceName(name: string | undefined): string {
  if (unset(name)) return '';
  return DEVICES[fold(name as string)] ?? 'other';
}
