// The patterns and tags of crawler-user-agents (MIT), slimmed by scripts/slim-crawlers.mjs.

import type { BotCategory } from '@us/shared/bot-vocabulary';
import { isbot, isbotMatch } from 'isbot';
import crawlerUserAgents from './crawlers.json' with { type: 'json' };

/**
 * User-agent classification: declared bots (by name and category), client software that never runs page
 * scripts, and signs of browser automation. Used by the collector and by the bot-protection gate.
 *
 * Order: (1) automation markers are noted and removed from the string, so a headless browser stays a browser with
 * an automation sign; (2) a curated table of well-known bots gives name, category and whether the operator
 * publishes a way to verify its crawler (IP lists or reverse DNS); (3) any other string that `isbot` recognises is
 * a bot, named from the crawler-user-agents list (MIT) and categorised from its tags, else `other`.
 * The user-agent string itself is never returned or stored.
 */
export interface BotInfo {
  name: string;
  category: BotCategory;
  ai: boolean;
  /** The operator publishes how to verify its crawler (IP ranges or reverse DNS). */
  verifiable: boolean;
}

export interface UaClass {
  /**
   * `bot`: software that declares itself a crawler or bot. `browser`: everything else, including HTTP
   * libraries and command-line tools (category `tool`), which are software that never runs page scripts.
   */
  kind: 'browser' | 'bot';
  /** The declared bot, or for a `tool` the software it is. */
  bot?: BotInfo;
  /** Signs of automation in the string (`headless-chrome`, `no-script-client`, …). */
  automation: string[];
}

/** The sign a client gets when its software never runs page scripts (HTTP libraries, command-line tools). */
export const NO_SCRIPT_CLIENT = 'no-script-client';

/** A match of the catalogue as the classification says it: tools are browsers that never run page scripts. */
function matched(bot: BotInfo, automation: string[]): UaClass {
  if (bot.category === 'tool') return { kind: 'browser', bot, automation: [...automation, NO_SCRIPT_CLIENT] };
  return { kind: 'bot', bot, automation };
}

type Known = [RegExp, string, BotCategory, boolean];

/** Well-known bots; the first match wins, so the more specific names come first. */
const KNOWN: Known[] = [
  // AI assistants acting for one user (fetches triggered by a person's question).
  [/ChatGPT-User/i, 'ChatGPT-User', 'ai-assistant', true],
  [/Claude-User/i, 'Claude-User', 'ai-assistant', true],
  [/Perplexity-User/i, 'Perplexity-User', 'ai-assistant', true],
  [/MistralAI-User/i, 'MistralAI-User', 'ai-assistant', false],
  [/Meta-ExternalFetcher/i, 'Meta-ExternalFetcher', 'ai-assistant', false],
  [/DuckAssistBot/i, 'DuckAssistBot', 'ai-search', false],
  [/GoogleAgent-Mariner|Google-Agent/i, 'Google-Agent', 'ai-assistant', false],
  [/Manus-User/i, 'Manus-User', 'ai-assistant', false],
  [/AmazonBuyForMe|Amazon-Bedrock-AgentCore/i, 'Amazon-Agent', 'ai-assistant', false],
  // AI search indexes.
  [/OAI-SearchBot/i, 'OAI-SearchBot', 'ai-search', true],
  [/Claude-SearchBot/i, 'Claude-SearchBot', 'ai-search', true],
  [/PerplexityBot/i, 'PerplexityBot', 'ai-search', true],
  [/YouBot/i, 'YouBot', 'ai-search', false],
  [/PhindBot/i, 'PhindBot', 'ai-search', false],
  // AI training crawlers.
  [/GPTBot/i, 'GPTBot', 'ai-training', true],
  [/ClaudeBot/i, 'ClaudeBot', 'ai-training', true],
  [/anthropic-ai|Claude-Web/i, 'anthropic-ai', 'ai-training', false],
  [/CCBot/i, 'CCBot', 'ai-training', true],
  [/Google-Extended/i, 'Google-Extended', 'ai-training', true],
  [/Applebot-Extended/i, 'Applebot-Extended', 'ai-training', true],
  [/Bytespider/i, 'Bytespider', 'ai-training', false],
  [/Meta-ExternalAgent/i, 'Meta-ExternalAgent', 'ai-training', false],
  [/Amazonbot/i, 'Amazonbot', 'ai-training', true],
  [/cohere-(?:ai|training)/i, 'cohere-ai', 'ai-training', false],
  [/Diffbot/i, 'Diffbot', 'ai-training', false],
  [/AI2Bot/i, 'AI2Bot', 'ai-training', false],
  [/Omgili/i, 'Omgilibot', 'ai-training', false],
  [/img2dataset/i, 'img2dataset', 'ai-training', false],
  [/PanguBot/i, 'PanguBot', 'ai-training', false],
  [/Timpibot/i, 'Timpibot', 'ai-training', false],
  [/ImagesiftBot/i, 'ImagesiftBot', 'ai-training', false],
  // Search engines.
  [/Google-InspectionTool/i, 'Google-InspectionTool', 'search-engine', true],
  [/Googlebot/i, 'Googlebot', 'search-engine', true],
  [/GoogleOther/i, 'GoogleOther', 'search-engine', true],
  [/Storebot-Google|AdsBot-Google|Mediapartners-Google/i, 'Google', 'search-engine', true],
  [/bingbot/i, 'Bingbot', 'search-engine', true],
  [/BingPreview/i, 'BingPreview', 'preview', true],
  [/adidxbot|msnbot/i, 'Bingbot', 'search-engine', true],
  [/Applebot/i, 'Applebot', 'search-engine', true],
  [/DuckDuckBot/i, 'DuckDuckBot', 'search-engine', true],
  [/Yandex(?:Bot|Mobile|Images|Accessibility|RenderResources)/i, 'YandexBot', 'search-engine', true],
  [/Baiduspider/i, 'Baiduspider', 'search-engine', true],
  [/Slurp/i, 'Yahoo! Slurp', 'search-engine', true],
  [/SeznamBot/i, 'SeznamBot', 'search-engine', true],
  [/Qwantbot|Qwantify/i, 'Qwantbot', 'search-engine', false],
  [/PetalBot/i, 'PetalBot', 'search-engine', true],
  [/Sogou/i, 'Sogou', 'search-engine', false],
  [/360Spider/i, '360Spider', 'search-engine', false],
  [/Yeti\/|NaverBot/i, 'NaverBot', 'search-engine', true],
  [/MojeekBot/i, 'MojeekBot', 'search-engine', false],
  [/coccocbot/i, 'coccocbot', 'search-engine', true],
  [/YisouSpider/i, 'YisouSpider', 'search-engine', false],
  [/Exabot/i, 'Exabot', 'search-engine', false],
  // Link previews.
  [/facebookexternalhit|facebookcatalog|meta-externalads/i, 'facebookexternalhit', 'preview', true],
  [/Slackbot|Slack-ImgProxy/i, 'Slackbot', 'preview', false],
  [/Twitterbot/i, 'Twitterbot', 'preview', false],
  [/Discordbot/i, 'Discordbot', 'preview', false],
  [/LinkedInBot/i, 'LinkedInBot', 'preview', false],
  [/WhatsApp/i, 'WhatsApp', 'preview', false],
  [/TelegramBot/i, 'TelegramBot', 'preview', false],
  [/Pinterest/i, 'Pinterestbot', 'preview', false],
  [/redditbot/i, 'redditbot', 'preview', false],
  [/SkypeUriPreview/i, 'SkypeUriPreview', 'preview', false],
  [/Embedly|Iframely|vkShare|Mastodon\//i, 'link-preview', 'preview', false],
  // SEO tools.
  [/AhrefsBot|AhrefsSiteAudit/i, 'AhrefsBot', 'seo', true],
  [/SemrushBot|SiteAuditBot|SplitSignalBot/i, 'SemrushBot', 'seo', false],
  [/MJ12bot/i, 'MJ12bot', 'seo', false],
  [/DotBot/i, 'DotBot', 'seo', false],
  [/rogerbot/i, 'rogerbot', 'seo', false],
  [/BLEXBot/i, 'BLEXBot', 'seo', false],
  [/DataForSeoBot/i, 'DataForSeoBot', 'seo', false],
  [/Screaming Frog/i, 'Screaming Frog', 'seo', false],
  [/serpstatbot/i, 'serpstatbot', 'seo', false],
  [/barkrowler/i, 'Barkrowler', 'seo', false],
  [/SEOkicks/i, 'SEOkicks', 'seo', false],
  // Uptime monitors.
  [/UptimeRobot/i, 'UptimeRobot', 'monitor', true],
  [/Pingdom/i, 'Pingdom', 'monitor', true],
  [/StatusCake/i, 'StatusCake', 'monitor', true],
  [/Site24x7/i, 'Site24x7', 'monitor', true],
  [/Better ?Uptime|Better Stack/i, 'Better Stack', 'monitor', true],
  [/Uptime-Kuma/i, 'Uptime Kuma', 'monitor', false],
  [/Datadog/i, 'Datadog', 'monitor', false],
  [/NewRelicPinger/i, 'New Relic', 'monitor', false],
  [/Checkly/i, 'Checkly', 'monitor', false],
  [/Freshping/i, 'Freshping', 'monitor', false],
  // Archivers.
  [/archive\.org_bot|Wayback|special_archiver/i, 'archive.org_bot', 'archiver', false],
  [/ia_archiver/i, 'ia_archiver', 'archiver', false],
  [/heritrix/i, 'Heritrix', 'archiver', false],
  [/Arquivo-web-crawler/i, 'Arquivo', 'archiver', false],
  // HTTP libraries and command-line tools.
  [/^curl\//i, 'curl', 'tool', false],
  [/^Wget\//i, 'Wget', 'tool', false],
  [/python-requests/i, 'python-requests', 'tool', false],
  [/python-urllib|Python-urllib/i, 'python-urllib', 'tool', false],
  [/python-httpx/i, 'httpx', 'tool', false],
  [/aiohttp/i, 'aiohttp', 'tool', false],
  [/Scrapy/i, 'Scrapy', 'tool', false],
  [/Go-http-client/i, 'Go-http-client', 'tool', false],
  [/^axios\//i, 'axios', 'tool', false],
  [/node-fetch/i, 'node-fetch', 'tool', false],
  [/^undici|^node$/i, 'undici', 'tool', false],
  [/okhttp/i, 'okhttp', 'tool', false],
  [/Apache-HttpClient/i, 'Apache-HttpClient', 'tool', false],
  [/^Java\//i, 'Java', 'tool', false],
  [/libwww-perl/i, 'libwww-perl', 'tool', false],
  [/PostmanRuntime/i, 'Postman', 'tool', false],
  [/insomnia/i, 'Insomnia', 'tool', false],
  [/HTTPie/i, 'HTTPie', 'tool', false],
  [/GuzzleHttp/i, 'Guzzle', 'tool', false],
  [/^Ruby|Faraday/i, 'Ruby', 'tool', false],
  [/reqwest/i, 'reqwest', 'tool', false],
];

/** One pass over every table pattern first, so a browser string costs a single regex test. */
const KNOWN_ANY = new RegExp(KNOWN.map(([re]) => `(?:${re.source})`).join('|'), 'i');

/** Signs of a browser driven by a program. Removed before bot detection: these stay browsers. */
const AUTOMATION: [RegExp, string][] = [
  [/HeadlessChrome/i, 'headless-chrome'],
  [/\bHeadless\b/i, 'headless'],
  [/PhantomJS/i, 'phantomjs'],
  [/Puppeteer/i, 'puppeteer'],
  [/Playwright/i, 'playwright'],
  [/Selenium|WebDriver/i, 'webdriver'],
  [/\bElectron\//i, 'electron'],
  [/SlimerJS/i, 'slimerjs'],
  [/\bsplash\b/i, 'splash'],
];
const AUTOMATION_STRIP = new RegExp(AUTOMATION.map(([re]) => re.source).join('|'), 'gi');

const TAG_CATEGORY: Record<string, BotCategory> = {
  'search-engine': 'search-engine',
  'ai-crawler': 'ai-training',
  'social-preview': 'preview',
  seo: 'seo',
  monitoring: 'monitor',
  archiver: 'archiver',
  'http-library': 'tool',
};

interface Crawler {
  pattern: string;
  tags?: string[];
}
let crawlers: { re: RegExp; category: BotCategory }[] | null = null;

function crawlerList() {
  if (!crawlers) {
    const list = crawlerUserAgents as Crawler[];
    crawlers = [];
    for (const c of list) {
      if (c.tags?.includes('browser-automation') && AUTOMATION.some(([re]) => re.test(c.pattern))) continue;
      let re: RegExp;
      try {
        re = new RegExp(c.pattern);
      } catch {
        continue;
      }
      const tag = c.tags?.find((t) => t in TAG_CATEGORY);
      crawlers.push({ re, category: tag ? TAG_CATEGORY[tag]! : 'other' });
    }
  }
  return crawlers;
}

function cleanName(s: string): string {
  const name = s
    .replace(/[/;(),+]+.*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return (name || s.trim()).slice(0, 64) || 'unknown';
}

function info(name: string, category: BotCategory, verifiable: boolean): BotInfo {
  return { name, category, ai: category.startsWith('ai-'), verifiable };
}

/**
 * Classifications of user agents seen lately: real traffic repeats a few thousand strings, and the
 * regular-expression passes below cost more than the lookup. Answers are frozen (shared between
 * callers); the map starts over when full.
 */
const seen = new Map<string, UaClass>();
const SEEN_MAX = 5_000;
/** Longer strings are classified each time rather than kept (a stranger's 8 KB header is not memory we hold). */
const SEEN_LONGEST = 512;

export function classifyUserAgent(ua: string | null | undefined): UaClass {
  const key = ua ?? '';
  const hit = seen.get(key);
  if (hit) return hit;
  const cls = classifyFresh(key);
  if (key.length <= SEEN_LONGEST) {
    if (seen.size >= SEEN_MAX) seen.clear();
    Object.freeze(cls.automation);
    if (cls.bot) Object.freeze(cls.bot);
    seen.set(key, Object.freeze(cls));
  }
  return cls;
}

function classifyFresh(ua: string): UaClass {
  const s = ua.trim();
  if (!s) return { kind: 'browser', automation: ['no-user-agent'] };
  const automation: string[] = [];
  for (const [re, sign] of AUTOMATION)
    if (re.test(s) && !(sign === 'headless' && automation.includes('headless-chrome'))) automation.push(sign);
  const rest = automation.length ? s.replace(AUTOMATION_STRIP, '') : s;

  if (KNOWN_ANY.test(rest)) {
    for (const [re, name, category, verifiable] of KNOWN) {
      if (re.test(rest)) return matched(info(name, category, verifiable), automation);
    }
  }
  if (!isbot(rest)) {
    // A string without the usual "Mozilla/5.0 (" shape is software, not a browser.
    if (!/^Mozilla\/5\.0 \(/.test(s)) automation.push('not-a-browser-user-agent');
    return { kind: 'browser', automation };
  }
  for (const c of crawlerList()) {
    const m = c.re.exec(rest);
    if (m) return matched(info(cleanName(m[0]), c.category, false), automation);
  }
  return { kind: 'bot', bot: info(cleanName(isbotMatch(rest) ?? rest), 'other', false), automation };
}
