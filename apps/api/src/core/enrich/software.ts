import { keptAnswers } from '../cache/kept-answers.ts';

/**
 * The browser and operating system of a visit: a name from a short list and its major version, read from
 * the user agent or, when the browser sends them, its client hints (`Sec-CH-UA`, `Sec-CH-UA-Platform`,
 * `Sec-CH-UA-Platform-Version`). Only these derived values are stored, never the strings.
 *
 * A few ordered patterns, like device.ts: a full parser (ua-parser-js 2 is AGPL; the MIT ones carry
 * hundreds of patterns for names the dashboard would fold into "Other" anyway) is not worth its weight on
 * the collect path. Versions the user agent no longer tells are left out rather than guessed: Windows 10
 * and 11 both say "Windows NT 10.0", every Mac says 10.15, Chrome on Android says "Android 10; K", and
 * Chrome OS a frozen build number.
 */
export interface Software {
  browser: string;
  browserMajor: number | null;
  os: string;
  osMajor: number | null;
}

/** Client hints as sent (each header's raw value, or empty). */
export interface ClientHints {
  brands?: string;
  platform?: string;
  platformVersion?: string;
}

export const BROWSERS = [
  'Chrome',
  'Safari',
  'Firefox',
  'Edge',
  'Samsung Internet',
  'Opera',
  'Brave',
  'Yandex Browser',
  'UC Browser',
  'Vivaldi',
  'Internet Explorer',
  'In-app browser',
  'Other',
] as const;
export const SYSTEMS = ['Windows', 'macOS', 'iOS', 'Android', 'Linux', 'ChromeOS', 'Other'] as const;

/** A major version as stored: a whole number below 1000, else unknown. */
const major = (s: string | undefined): number | null => {
  const n = s ? Number.parseInt(s, 10) : Number.NaN;
  return Number.isInteger(n) && n >= 0 && n < 1000 ? n : null;
};

// Order matters: browsers built on Chrome name themselves besides "Chrome/", and every browser on iOS
// says "Mobile/…" (only Safari says "Version/… Safari/").
const BROWSER_RULES: readonly [RegExp, (typeof BROWSERS)[number]][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  // UC before Opera: UC's proxy browser also says "Opera Mini".
  [/\bUC ?Browser\/?(\d+)|\bUCWEB|\bUCMobile\/(\d+)|\bUBrowser\/(\d+)/, 'UC Browser'],
  [/\b(?:OPR|OPT|OPX|OPiOS)\/(\d+)|\bOpera Mini\/(\d+)|^Opera\/.*Version\/(\d+)|\bOpera[ /](\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\bYaBrowser\/(\d+)|\bYaSearchBrowser\/(\d+)/, 'Yandex Browser'],
  [/\bVivaldi\/(\d+)/, 'Vivaldi'],
  [/\b[Bb]rave(?:\/(\d+))?\b/, 'Brave'],
  [/\bSilk\//, 'Other'],
  // Before Firefox: an old IE may add a "Firefox/" of its own; its version is Trident's plus 4 (see below).
  [/\bMSIE (\d+)|\bTrident\/.*\brv:(\d+)/, 'Internet Explorer'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  // Apps showing pages themselves: Android's WebView ("; wv)", or its older "Version/4.0 … Chrome/"),
  // and the apps that say who they are.
  [
    /; wv\)|\bAndroid\b.*\bVersion\/4\.0\b.*\bChrome\/|\b(?:FBAN|FBAV|FB_IAB|MicroMessenger|Line|GSA|musical_ly|BytedanceWebview|Snapchat)\/|\bInstagram \d|\[Pinterest\//,
    'In-app browser',
  ],
  [/\b(?:Chrome|CriOS|Chromium)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\b/, 'Safari'],
];

function browserOfUserAgent(ua: string): { browser: string; browserMajor: number | null } {
  for (const [re, browser] of BROWSER_RULES) {
    const m = re.exec(ua);
    if (!m) continue;
    // Android's old stock browser says "Version/4.0 … Safari" too: it is no Safari.
    if (browser === 'Safari' && /Android/.test(ua)) break;
    // IE in compatibility mode says an older MSIE: Trident tells the real one (11 was the last).
    const trident = browser === 'Internet Explorer' ? /\bTrident\/(\d+)/.exec(ua) : null;
    if (trident) return { browser, browserMajor: Math.min(11, Number(trident[1]) + 4) };
    return { browser, browserMajor: major(m.slice(1).find((g) => g !== undefined)) };
  }
  if (!/AppleWebKit/.test(ua) || /Android|Chrome\//.test(ua)) return { browser: 'Other', browserMajor: null };
  // iOS apps that show pages in a WebKit view have no "Safari"; Safari before version 3 had no "Version/".
  if (/\b(?:iPhone|iPad|iPod)\b/.test(ua))
    return { browser: /Safari/.test(ua) ? 'Safari' : 'In-app browser', browserMajor: null };
  if (/\bMacintosh\b.*\bSafari\//.test(ua)) return { browser: 'Safari', browserMajor: null };
  return { browser: 'Other', browserMajor: null };
}

const WINDOWS_NT: Record<string, number | null> = { '6.1': 7, '6.2': 8, '6.3': 8 };

function osOfUserAgent(ua: string): { os: string; osMajor: number | null } {
  // One way to match each string: `.*? +(\d+)[_\d]*` split spaces and digits every way it could, cubic in a
  // crafted string's length (a 4 KB user agent held the event loop for 4 s).
  const ios = /\b(?:iPhone|iPad|iPod)\b.*? (\d+)(?:_\d+)* like Mac OS X/.exec(ua);
  if (ios) return { os: 'iOS', osMajor: major(ios[1]) };
  // iOS browsers name themselves even when an iPad asks for the desktop page (as a Mac).
  if (/\b(?:iPhone|iPad|iPod)\b|\b(?:CriOS|EdgiOS|FxiOS|OPiOS)\//.test(ua)) return { os: 'iOS', osMajor: null };
  // Amazon's Fire tablets (Silk) run Android.
  if (/\bSilk\//.test(ua)) return { os: 'Android', osMajor: null };
  const android = /\bAndroid[ /]?(\d+)?/.exec(ua);
  // "Android 10; K": Chrome's reduced user agent, the same for every Android version.
  if (android) return { os: 'Android', osMajor: /Android 10; K\)/.test(ua) ? null : major(android[1]) };
  if (/\bCrOS\b/.test(ua)) return { os: 'ChromeOS', osMajor: null };
  const windows = /\bWindows NT (\d+\.\d+)/.exec(ua);
  if (windows) return { os: 'Windows', osMajor: WINDOWS_NT[windows[1] as string] ?? null };
  if (/\bWindows (?:Phone|Mobile)\b/.test(ua)) return { os: 'Other', osMajor: null };
  if (/\bWindows(?:CE)?\b|\bWin(?:32|64|98|95)\b/.test(ua)) return { os: 'Windows', osMajor: null };
  if (/\bMac OS X\b|\bMacintosh\b/.test(ua)) return { os: 'macOS', osMajor: null };
  if (/\bLinux\b|\bX11\b|\bUbuntu\b|\bFedora\b/.test(ua)) return { os: 'Linux', osMajor: null };
  return { os: 'Other', osMajor: null };
}

/**
 * The part of a user agent the patterns read: real ones end well within it, and a pattern with two `.*` (the
 * in-app rule) costs the square of what it reads, or more, on a crafted string of many repeated words.
 */
export const USER_AGENT_READ = 1_024;
export const userAgentHead = (ua: string | null | undefined) => (ua ?? '').slice(0, USER_AGENT_READ);

const ofUserAgent = keptAnswers((ua: string): Software => ({ ...browserOfUserAgent(ua), ...osOfUserAgent(ua) }), {
  max: 5_000,
  longest: 512,
});

/** `Sec-CH-UA` brands → names (the first named one wins; "Chromium" alone names no browser). */
const BRANDS: Record<string, string> = {
  'Google Chrome': 'Chrome',
  'Microsoft Edge': 'Edge',
  Opera: 'Opera',
  'Opera GX': 'Opera',
  Brave: 'Brave',
  'Samsung Internet': 'Samsung Internet',
  YaBrowser: 'Yandex Browser',
  Yandex: 'Yandex Browser',
  Vivaldi: 'Vivaldi',
};

const HINT_LONGEST = 256;

/** The browser the brands name: `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`. */
const browserOfBrands = keptAnswers(
  (brands: string): { browser: string; browserMajor: number | null } | null => {
    for (const m of brands.matchAll(/"([^"]{1,64})"\s*;\s*v\s*=\s*"(\d{1,6})[^"]*"/g)) {
      const browser = BRANDS[m[1] as string];
      if (browser) return { browser, browserMajor: major(m[2]) };
    }
    return null;
  },
  { max: 1_000, longest: HINT_LONGEST },
);

const PLATFORMS: Record<string, string> = {
  Windows: 'Windows',
  macOS: 'macOS',
  iOS: 'iOS',
  Android: 'Android',
  Linux: 'Linux',
  'Chrome OS': 'ChromeOS',
  ChromeOS: 'ChromeOS',
};

/**
 * The system the platform hints name, its version from `Sec-CH-UA-Platform-Version` when sent (only on a
 * site's request): Windows 11 says 13 or more, Windows 10 says 1 to 10 (Microsoft's documented mapping).
 */
function osOfHints(platform: string, version: string | undefined): { os: string; osMajor: number | null } | null {
  const os = PLATFORMS[platform.replace(/^"|"$/g, '')];
  if (!os) return null;
  const v = version && version.length <= HINT_LONGEST ? major(/^"?(\d+)/.exec(version)?.[1]) : null;
  if (v === null || os === 'Linux' || os === 'ChromeOS') return { os, osMajor: null };
  if (os === 'Windows') return { os, osMajor: v >= 13 ? 11 : v >= 1 ? 10 : null };
  return { os, osMajor: v };
}

/**
 * Browser and system of a request from its user agent, the client hints preferred where they name one
 * (they tell Brave from Chrome, and Windows 11 from 10 when the version hint is there).
 */
export function softwareOf(ua: string | null | undefined, hints?: ClientHints): Software {
  const fromUa = ofUserAgent(userAgentHead(ua));
  if (!hints?.brands && !hints?.platform) return fromUa;
  const brand = hints.brands && hints.brands.length <= HINT_LONGEST ? browserOfBrands(hints.brands) : null;
  const system = hints.platform && hints.platform.length <= 32 ? osOfHints(hints.platform, hints.platformVersion) : null;
  // The hints' system without a version says no more than the user agent's (which may know iOS's).
  const useSystem = system && (system.os !== fromUa.os || system.osMajor !== null);
  return { ...fromUa, ...(brand ?? {}), ...(useSystem ? system : {}) };
}
