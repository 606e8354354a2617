// The patterns and tags of crawler-user-agents (MIT), slimmed by scripts/slim-crawlers.mjs.

import type { BotCategory } from '@us/shared/bot-vocabulary';
import { isbot, isbotMatch } from 'isbot';
import { aiAgentOf } from './ai-agents.ts';
import { BROWSER_OWN, NAMED_BROWSER } from './browser-names.ts';
import crawlerUserAgents from './crawlers.json' with { type: 'json' };
import { KNOWN, KNOWN_ANY } from './known-bots.ts';

/**
 * User-agent classification: declared bots (by name and category), client software that never runs page
 * scripts, and signs of browser automation. Used by the collector and by the bot-protection gate.
 *
 * Order: (1) automation markers are noted and removed from the string, so a headless browser stays a browser with
 * an automation sign; (2) the browser's own requests (`browser-names.ts`) are a browser's; (3) a curated table of
 * well-known bots and client software (`known-bots.ts`) gives name, category and whether the operator publishes a
 * way to verify its crawler (IP lists or reverse DNS); (4) the AI agents of the public lists (`ai-agents.ts`) by
 * name; (5) browsers named by a token a bot list misreads (in-app, feature-phone and TV browsers) are browsers;
 * (6) any other string that `isbot` recognises is a bot, named from the crawler-user-agents list (MIT) and
 * categorised from its tags, else `other` (or AI, when it says so); (7) everything else is a browser, whatever
 * its shape. The user-agent string itself is never returned or stored.
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

/**
 * Signs of a browser driven by a program. Removed before bot detection: these stay browsers. Electron is no
 * such sign: it is how desktop apps (Slack, Discord, VS Code) show web pages to the person using them.
 */
const AUTOMATION: [RegExp, string][] = [
  [/HeadlessChrome/i, 'headless-chrome'],
  [/\bHeadless\b/i, 'headless'],
  [/PhantomJS/i, 'phantomjs'],
  [/Puppeteer/i, 'puppeteer'],
  [/Playwright/i, 'playwright'],
  [/Selenium|WebDriver/i, 'webdriver'],
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

/** The category of a crawler-user-agents entry: an AI crawler that also indexes for search is `ai-search`. */
function categoryOfTags(tags: string[] | undefined): BotCategory {
  if (!tags) return 'other';
  if (tags.includes('ai-crawler')) return tags.includes('search-engine') ? 'ai-search' : 'ai-training';
  const tag = tags.find((t) => t in TAG_CATEGORY);
  return tag ? TAG_CATEGORY[tag]! : 'other';
}

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
      crawlers.push({ re, category: categoryOfTags(c.tags) });
    }
  }
  return crawlers;
}

/**
 * The category of a bot no list files: `other`, unless it says it is an AI's (`+https://example.ai`,
 * `… AI directives`, `LLM`), then what it does from its words (`-User`, `Agent`, `fetcher`: for one person;
 * `search`: an index), else collecting.
 */
const AI_HINT = /\.ai\b|\bAI\b|\bLLM|\bGPT/;
function unlistedCategory(ua: string): BotCategory {
  if (!AI_HINT.test(ua)) return 'other';
  if (/-User\b|Agent\b|fetcher/i.test(ua)) return 'ai-assistant';
  return /search/i.test(ua) ? 'ai-search' : 'ai-training';
}

function cleanName(s: string): string {
  const name = cutAtPunctuation(s).replace(/\s+/g, ' ').trim();
  return (name || s.trim()).slice(0, 64) || 'unknown';
}

const LINE_BREAK = /[\n\r\u2028\u2029]/;
const NAME_END = /[/;(),+]/;

/**
 * `s` without what `/[/;(),+]+.*$/` removes (from the first of those characters on the last line), in one pass:
 * that pattern backtracked in cubic time over a run of them on a line before the last.
 */
function cutAtPunctuation(s: string): string {
  let lastLine = s.length;
  while (lastLine > 0 && !LINE_BREAK.test(s[lastLine - 1] as string)) lastLine--;
  const at = s.slice(lastLine).search(NAME_END);
  return at < 0 ? s : s.slice(0, lastLine + at);
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
/** The characters of a user agent the classifier reads. */
export const UA_READ_CHARS = 1_024;

export function classifyUserAgent(ua: string | null | undefined): UaClass {
  // Only the first 1,024 characters are read (what a pass is bound to): the patterns cost more than linear time
  // over some made-up strings, and a page report's header may be 16 KB.
  const key = (ua ?? '').slice(0, UA_READ_CHARS);
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

  if (BROWSER_OWN.test(rest)) return { kind: 'browser', automation };
  if (KNOWN_ANY.test(rest)) {
    for (const [re, name, category, verifiable] of KNOWN) {
      if (re.test(rest)) return matched(info(name, category, verifiable), automation);
    }
  }
  const agent = aiAgentOf(rest);
  if (agent) return matched(info(agent.name, agent.category, false), automation);
  if (NAMED_BROWSER.test(rest)) return { kind: 'browser', automation };
  // Any other string isbot does not take for a bot is a browser's, whatever its shape: old Opera, feature
  // phones, in-app browsers, truncated strings.
  if (!isbot(rest)) return { kind: 'browser', automation };
  for (const c of crawlerList()) {
    const m = c.re.exec(rest);
    if (m) return matched(info(cleanName(m[0]), c.category === 'other' ? unlistedCategory(rest) : c.category, false), automation);
  }
  return { kind: 'bot', bot: info(cleanName(isbotMatch(rest) ?? rest), unlistedCategory(rest), false), automation };
}
