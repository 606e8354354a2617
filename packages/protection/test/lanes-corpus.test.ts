import { readFileSync } from 'node:fs';
import { isbot } from 'isbot';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyUserAgent, NO_SCRIPT_CLIENT, type UaClass } from '../src/catalogue.ts';

// The lanes measured on public corpora of real user agents (sources and dates at the top of each file in
// corpora/). People is the collector's human lane as far as the user agent decides it: a browser with no
// sign at all (a sign files a visit with the crawlers, whatever the gate then does with it).

const lines = (file: string) =>
  readFileSync(new URL(`./corpora/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));

interface AiCorpus {
  agents: { name: string; expected: string; why: string }[];
  strings: { name: string; ua: string }[];
}
const ai = JSON.parse(readFileSync(new URL('./corpora/ai-agents.json', import.meta.url), 'utf8')) as AiCorpus;

const inPeople = (c: UaClass) => c.kind === 'browser' && c.automation.length === 0;
const withCrawlers = (c: UaClass) => !inPeople(c);

const rates: string[] = [];
afterAll(() => console.log(`lanes on real user agents:\n  ${rates.join('\n  ')}`));

function measure(file: string, holds: (c: UaClass) => boolean) {
  const uas = lines(file);
  const misses = uas.filter((ua) => !holds(classifyUserAgent(ua)));
  return { total: uas.length, share: 1 - misses.length / uas.length, misses };
}
const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const shown = (misses: string[]) => misses.slice(0, 10).join('\n');

describe('browsers stay in People', () => {
  it('at least 99.9 % of common browser strings', () => {
    const r = measure('common-browsers.txt', inPeople);
    rates.push(`People, common browsers: ${pct(r.share)} of ${r.total}`);
    expect(r.share, shown(r.misses)).toBeGreaterThanOrEqual(0.999);
  });

  it('at least 99 % of a broad corpus: in-app browsers, webviews, old and niche browsers, Electron apps, odd strings', () => {
    const r = measure('broad-browsers.txt', inPeople);
    rates.push(`People, broad corpus: ${pct(r.share)} of ${r.total}`);
    expect(r.share, shown(r.misses)).toBeGreaterThanOrEqual(0.99);
  });

  it.each([
    ['old Opera (Presto)', /^Opera\/\d/],
    ['BlackBerry and feature phones (MIDP)', /^BlackBerry|Profile\/MIDP/],
    ['old Internet Explorer (Mozilla/4.0)', /^Mozilla\/4\.0 \(compatible; MSIE/],
    ['Electron apps', /\bElectron\//],
    ["Pinterest's app and in-app browser", /\[Pinterest\/|^Pinterest for /],
    ["Facebook's and Instagram's in-app browsers", /\bFB(?:AN|AV|_IAB)\/|\bInstagram \d/],
    ['WeChat and other in-app browsers', /\bMicroMessenger\/|\bmusical_ly|\bBytedanceWebview|\bLinkedInApp|\bLine\//],
    ['strings that do not start "Mozilla/5.0 ("', /^(?!Mozilla\/5\.0 \()/],
  ])('%s of the broad corpus, every one', (_, which) => {
    const uas = lines('broad-browsers.txt').filter((ua) => which.test(ua));
    expect(uas.length).toBeGreaterThan(0);
    const wrong = uas.filter((ua) => !inPeople(classifyUserAgent(ua)) && !isbot(ua));
    // Only where isbot itself reads a bot (a phone model named "M bot 51") may a string leave People.
    expect(wrong).toEqual([]);
  });
});

describe('declared bots and client software go to the crawlers', () => {
  it('declared bots are caught at least as often as isbot catches them on the same strings', () => {
    const uas = lines('declared-bots.txt');
    const ours = uas.filter((ua) => withCrawlers(classifyUserAgent(ua))).length / uas.length;
    const theirs = uas.filter((ua) => isbot(ua)).length / uas.length;
    rates.push(`declared bots caught: ${pct(ours)}, isbot ${pct(theirs)}, of ${uas.length}`);
    expect(ours).toBeGreaterThanOrEqual(theirs);
    // Not only as often: every string isbot catches is caught.
    expect(uas.filter((ua) => isbot(ua) && !withCrawlers(classifyUserAgent(ua)))).toEqual([]);
  });

  it('HTTP libraries and command-line tools, every one', () => {
    const r = measure('tools.txt', (c) => c.kind === 'bot' || c.automation.includes(NO_SCRIPT_CLIENT));
    rates.push(`tools with the crawlers: ${pct(r.share)} of ${r.total}`);
    expect(r.misses).toEqual([]);
  });
});

describe('AI agents get the AI category of their documented function', () => {
  it('at least 95 % of the ai.robots.txt list by the name each sends', () => {
    const got = ai.agents.map((a) => ({ ...a, bot: classifyUserAgent(a.name).bot }));
    const matching = got.filter((a) => a.bot?.category === a.expected).length / got.length;
    const anyAi = got.filter((a) => a.bot?.ai).length / got.length;
    rates.push(
      `AI agents (ai.robots.txt, ${got.length}): ${pct(matching)} with the matching category, ${pct(anyAi)} with an AI one`,
    );
    expect(matching).toBeGreaterThanOrEqual(0.95);
  });

  it('agents filed elsewhere on purpose: the documented function is not only AI', () => {
    // A search engine's own crawler (verified ones are served before any rule but theirs), a link preview that
    // sharing needs, and a scraping framework that never runs page scripts.
    const elsewhere = ai.agents
      .map((a) => ({ name: a.name, category: classifyUserAgent(a.name).bot?.category }))
      .filter((a) => a.category !== ai.agents.find((x) => x.name === a.name)?.expected);
    expect(elsewhere).toEqual([
      { name: 'Applebot', category: 'search-engine' },
      { name: 'facebookexternalhit', category: 'preview' },
      { name: 'PetalBot', category: 'search-engine' },
      { name: 'Scrapy', category: 'tool' },
    ]);
  });

  it('at least 95 % of full AI crawler strings are AI', () => {
    const share = ai.strings.filter((s) => classifyUserAgent(s.ua).bot?.ai).length / ai.strings.length;
    rates.push(`AI crawler strings (crawler-user-agents, ${ai.strings.length}): ${pct(share)} AI`);
    expect(share).toBeGreaterThanOrEqual(0.95);
  });
});
