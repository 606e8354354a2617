import type { RangeList } from './crawler-ranges.ts';

/**
 * How each crawler's operator lets us check a claim, from the operators' own documentation: the domains
 * its addresses' reverse DNS names lie under (confirmed forward), and the IP-range lists it publishes
 * (`crawler-ranges.json`). Range lists answer first, without DNS; reverse DNS covers addresses newer than
 * the copy. An operator with lists only: an address outside them is `failed`.
 *
 * `googleusercontent.com` is what every Google Cloud VM's reverse DNS name ends in: Google documents it for
 * user-triggered fetchers only, never for Googlebot, so it verifies nobody here; those fetchers are checked
 * by Google's user-triggered-fetcher lists and `google.com`.
 */
export interface CrawlerCheck {
  /** The operator's group of crawlers: verdicts are cached per address and group. */
  id: string;
  domains?: readonly string[];
  ranges?: readonly RangeList[];
}

const GOOGLE_CRAWLERS: CrawlerCheck = {
  id: 'google-crawlers',
  domains: ['googlebot.com', 'google.com'],
  ranges: ['google-common-crawlers', 'google-special-crawlers'],
};
const GOOGLE_FETCHERS: CrawlerCheck = {
  id: 'google-fetchers',
  domains: ['google.com'],
  ranges: ['google-user-triggered-fetchers', 'google-user-triggered-fetchers-google'],
};
const BING: CrawlerCheck = { id: 'bing', domains: ['search.msn.com'], ranges: ['bingbot'] };
const APPLE: CrawlerCheck = { id: 'apple', domains: ['applebot.apple.com'], ranges: ['applebot'] };
const OPENAI: CrawlerCheck = { id: 'openai', ranges: ['openai'] };
const PERPLEXITY: CrawlerCheck = { id: 'perplexity', ranges: ['perplexity'] };
const DUCKDUCKGO: CrawlerCheck = { id: 'duckduckgo', ranges: ['duckduckgo'] };

/** By the catalogue's bot name (`classifyUserAgent(ua).bot.name`). */
const CHECKS: Readonly<Record<string, CrawlerCheck>> = {
  Googlebot: GOOGLE_CRAWLERS,
  'Google-InspectionTool': GOOGLE_CRAWLERS,
  GoogleOther: GOOGLE_CRAWLERS,
  // Storebot-Google, AdsBot-Google, Mediapartners-Google.
  Google: GOOGLE_CRAWLERS,
  'Google-Extended': GOOGLE_CRAWLERS,
  'FeedFetcher-Google': GOOGLE_FETCHERS,
  'Google-Read-Aloud': GOOGLE_FETCHERS,
  'Google-Site-Verification': GOOGLE_FETCHERS,
  'Google-NotebookLM': GOOGLE_FETCHERS,
  'Google-Agent': GOOGLE_FETCHERS,
  Bingbot: BING,
  BingPreview: BING,
  Applebot: APPLE,
  'Applebot-Extended': APPLE,
  GPTBot: OPENAI,
  'OAI-SearchBot': OPENAI,
  'ChatGPT-User': OPENAI,
  PerplexityBot: PERPLEXITY,
  'Perplexity-User': PERPLEXITY,
  DuckDuckBot: DUCKDUCKGO,
  DuckAssistBot: DUCKDUCKGO,
  CCBot: { id: 'commoncrawl', ranges: ['commoncrawl'] },
  YandexBot: { id: 'yandex', domains: ['yandex.ru', 'yandex.net', 'yandex.com'] },
  Baiduspider: { id: 'baidu', domains: ['baidu.com', 'baidu.jp'] },
  'Yahoo! Slurp': { id: 'yahoo', domains: ['crawl.yahoo.net'] },
  SeznamBot: { id: 'seznam', domains: ['seznam.cz'] },
  PetalBot: { id: 'petal', domains: ['petalsearch.com'] },
  Amazonbot: { id: 'amazon', domains: ['crawl.amazonbot.amazon'] },
};

/** The check for a bot, or undefined when its operator publishes no way to verify it. */
export function crawlerCheck(botName: string): CrawlerCheck | undefined {
  return Object.hasOwn(CHECKS, botName) ? CHECKS[botName] : undefined;
}

/** Whether a host name lies under one of the domains (`crawl-1.googlebot.com` under `googlebot.com`). */
export function underDomains(name: string, domains: readonly string[]): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return domains.some((d) => n === d || n.endsWith(`.${d}`));
}
