import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enrich } from '../../../src/core/enrich/index.ts';
import { BROWSERS, SYSTEMS, softwareOf } from '../../../src/core/enrich/software.ts';

// The corpus: real user agents with the families ua-parser's reference rules give them (sources and dates in the file).
const corpus = readFileSync(new URL('../corpora/browsers-systems.tsv', import.meta.url), 'utf8');
type Case = { section: string; browser: string; browserMajor: string; os: string; osMajor: string; ua: string };
const cases: Case[] = [];
let section = '';
for (const line of corpus.split('\n')) {
  if (line.startsWith('## ')) section = line.slice(3);
  if (!line || line.startsWith('#')) continue;
  const [browser = '', browserMajor = '', os = '', osMajor = '', ua = ''] = line.split('\t');
  cases.push({ section, browser, browserMajor, os, osMajor, ua });
}

/** uap families → the names this service keeps (families not listed here are not compared). */
const BROWSER_OF: Record<string, string> = {
  Chrome: 'Chrome',
  'Chrome Mobile': 'Chrome',
  'Chrome Mobile iOS': 'Chrome',
  Firefox: 'Firefox',
  'Firefox Mobile': 'Firefox',
  'Firefox iOS': 'Firefox',
  Safari: 'Safari',
  'Mobile Safari': 'Safari',
  Edge: 'Edge',
  'Edge Mobile': 'Edge',
  'Samsung Internet': 'Samsung Internet',
  Opera: 'Opera',
  'Opera Mobile': 'Opera',
  'Opera Mini': 'Opera',
  'Opera Touch': 'Opera',
  'Yandex Browser': 'Yandex Browser',
  'UC Browser': 'UC Browser',
  Vivaldi: 'Vivaldi',
  Brave: 'Brave',
  IE: 'Internet Explorer',
  'Chrome Mobile WebView': 'In-app browser',
  'Mobile Safari UI/WKWebView': 'In-app browser',
  Facebook: 'In-app browser',
  Instagram: 'In-app browser',
  Snapchat: 'In-app browser',
  Google: 'In-app browser',
};
const OS_OF: Record<string, string> = {
  iOS: 'iOS',
  Android: 'Android',
  Windows: 'Windows',
  'Mac OS X': 'macOS',
  Linux: 'Linux',
  Ubuntu: 'Linux',
  Fedora: 'Linux',
  SUSE: 'Linux',
  'Chrome OS': 'ChromeOS',
};

/**
 * Strings where uap's rules are the ones that miss, each with why: Firefox on iOS whose string lacks uap's
 * expected "Mobile Safari" tail (uap calls it a WebKit view of an app).
 */
const CORPUS_MISSES = new Set([
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/155 Mobile/15E148 Version/26.4',
]);

/** Where this classifier and the corpus disagree on a compared family or a version both give. */
function disagreements(of: Case[]): string[] {
  const out: string[] = [];
  for (const c of of.filter((x) => !CORPUS_MISSES.has(x.ua))) {
    const s = softwareOf(c.ua);
    const browser = BROWSER_OF[c.browser];
    const os = OS_OF[c.os];
    if (browser && s.browser !== browser) out.push(`browser ${s.browser}, corpus ${c.browser}: ${c.ua}`);
    else if (browser && s.browserMajor !== null && String(s.browserMajor) !== c.browserMajor)
      out.push(`browser version ${s.browserMajor}, corpus ${c.browserMajor}: ${c.ua}`);
    if (os && s.os !== os) out.push(`system ${s.os}, corpus ${c.os}: ${c.ua}`);
    // uap names Windows releases ("XP", "RT 8"); only numbers are compared.
    else if (os && s.osMajor !== null && /^\d+$/.test(c.osMajor) && String(s.osMajor) !== c.osMajor)
      out.push(`system version ${s.osMajor}, corpus ${c.osMajor}: ${c.ua}`);
  }
  return out;
}

describe('browser and operating system of a user agent', () => {
  const common = cases.filter((c) => c.section === 'common');
  const uap = cases.filter((c) => c.section === 'uap');

  it('reads the corpus', () => {
    expect(common.length).toBeGreaterThan(300);
    expect(uap.length).toBeGreaterThan(200);
  });

  it("names today's browsers and systems as the corpus does, with the same major versions", () => {
    expect(disagreements(common)).toEqual([]);
    // The common browsers are all there, each with its version.
    const names = new Set(common.map((c) => softwareOf(c.ua).browser));
    for (const name of ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet', 'Opera']) expect(names).toContain(name);
    for (const c of common.filter((x) => ['Chrome', 'Chrome Mobile', 'Firefox', 'Mobile Safari', 'Edge'].includes(x.browser))) {
      expect(softwareOf(c.ua).browserMajor, c.ua).toBe(Number(c.browserMajor));
    }
  });

  it("agrees with uap-core's own test strings of browsers (old and odd ones included) at least 95 % of the time", () => {
    // Only strings a browser page sends ("Mozilla/…"): Safari's own icon fetches (`Safari/… CFNetwork/…`) run no page script.
    const compared = uap.filter((c) => c.ua.startsWith('Mozilla/') && (BROWSER_OF[c.browser] || OS_OF[c.os]));
    const wrong = disagreements(compared);
    expect(compared.length).toBeGreaterThan(200);
    expect(wrong.length / compared.length, wrong.join('\n')).toBeLessThan(0.05);
  });

  it('gives only names of the short lists and versions under 1000', () => {
    for (const c of cases) {
      const s = softwareOf(c.ua);
      expect(BROWSERS).toContain(s.browser);
      expect(SYSTEMS).toContain(s.os);
      for (const v of [s.browserMajor, s.osMajor]) if (v !== null) expect(v).toBeLessThan(1000);
    }
    expect(softwareOf('')).toEqual({ browser: 'Other', browserMajor: null, os: 'Other', osMajor: null });
    expect(softwareOf('Mozilla/5.0 (X11; Linux x86_64) Chrome/99999999.0 Safari/537.36').browserMajor).toBeNull();
  });

  it('leaves out the versions user agents no longer tell: Windows 10 or 11, macOS, reduced Android', () => {
    const windows =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    expect(softwareOf(windows)).toEqual({ browser: 'Chrome', browserMajor: 131, os: 'Windows', osMajor: null });
    const mac =
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
    expect(softwareOf(mac)).toEqual({ browser: 'Safari', browserMajor: 18, os: 'macOS', osMajor: null });
    const reduced =
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
    expect(softwareOf(reduced)).toEqual({ browser: 'Chrome', browserMajor: 131, os: 'Android', osMajor: null });
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
    expect(softwareOf(iphone)).toEqual({ browser: 'Safari', browserMajor: 18, os: 'iOS', osMajor: 18 });
    const win7 = 'Mozilla/5.0 (Windows NT 6.1; Win64; x64; rv:115.0) Gecko/20100101 Firefox/115.0';
    expect(softwareOf(win7)).toEqual({ browser: 'Firefox', browserMajor: 115, os: 'Windows', osMajor: 7 });
  });

  it('prefers client hints where they name more: Brave, Windows 11, the real Android version', () => {
    const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const brave = '"Brave";v="131", "Chromium";v="131", "Not_A Brand";v="24"';
    expect(softwareOf(ua, { brands: brave, platform: '"Windows"', platformVersion: '"15.0.0"' })).toEqual({
      browser: 'Brave',
      browserMajor: 131,
      os: 'Windows',
      osMajor: 11,
    });
    expect(softwareOf(ua, { brands: brave, platform: '"Windows"', platformVersion: '"10.0.0"' }).osMajor).toBe(10);
    // Chromium alone, or a brand this service does not name: the user agent decides.
    expect(softwareOf(ua, { brands: '"Chromium";v="131", "Not_A Brand";v="24"', platform: '"Windows"' })).toEqual({
      browser: 'Chrome',
      browserMajor: 131,
      os: 'Windows',
      osMajor: null,
    });
    const android =
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
    const edge = '"Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24"';
    expect(softwareOf(android, { brands: edge, platform: '"Android"', platformVersion: '"14.0.0"' })).toEqual({
      browser: 'Edge',
      browserMajor: 131,
      os: 'Android',
      osMajor: 14,
    });
    // An oversized hint is not read.
    expect(softwareOf(ua, { brands: `"Brave";v="131", ${'"x";v="1", '.repeat(40)}` }).browser).toBe('Chrome');
  });

  it('gives bots and client software no browser or system (a crawler dressed as Chrome is no Chrome visit)', () => {
    const googlebot =
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    for (const ua of [googlebot, 'curl/8.4.0']) {
      expect(enrich({ ua })).toMatchObject({ browser: null, browserMajor: null, os: null, osMajor: null });
    }
    const person = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
    expect(enrich({ ua: person })).toMatchObject({ browser: 'Firefox', browserMajor: 133, os: 'Linux', osMajor: null });
  });

  // The attack: a stranger's page report (or proxied request) with a crafted user agent of up to ~15 KB (the
  // header limit). The iOS pattern split its spaces and digits every way it could (cubic: 4 KB took 4 s, 15 KB
  // minutes of the event loop, every tenant's reports waiting), the in-app rule's two `.*` squared a repeated word.
  it('reads a crafted user agent of any length in one pass, and only its first 1,024 characters', () => {
    const n = 15_000;
    const spaced = `Mozilla/5.0 (iPhone;${' '.repeat(n / 3)}${'1'.repeat((2 * n) / 3)}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1`;
    expect(enrich({ ua: spaced })).toMatchObject({ os: 'iOS', osMajor: null });
    const repeated = `Mozilla/5.0 (Linux) ${'Android Version/4.0 '.repeat(745)}`;
    expect(enrich({ ua: repeated })).toMatchObject({ os: 'Android' });
    // What follows the first 1,024 characters says nothing.
    const safari =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
    const padded = `${safari}${' x'.repeat(500)}`;
    expect(enrich({ ua: padded })).toMatchObject({
      browser: 'Safari',
      browserMajor: 17,
      os: 'iOS',
      osMajor: 17,
      device: 'mobile',
    });
    expect(enrich({ ua: `${padded} Firefox/133.0 Windows NT 10.0 Xbox` })).toMatchObject({
      browser: 'Safari',
      os: 'iOS',
      device: 'mobile',
    });
    // The versions iOS user agents write, every way.
    for (const [ua, major] of [
      ['Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15', 16],
      ['Mozilla/5.0 (iPhone; U; CPU iPhone OS 4_3_3 like Mac OS X; en-us)', 4],
      ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1_1 like Mac OS X) AppleWebKit/605.1.15', 18],
    ] as const) {
      expect(softwareOf(ua).osMajor).toBe(major);
    }
  });
});
