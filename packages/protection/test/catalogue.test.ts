import { describe, expect, it } from 'vitest';
import { classifyUserAgent } from '../src/catalogue.ts';

// Each string is a real one: from the corpora (test/corpora/, sources and dates in each file) unless its test says.

describe('apps that look like bots to a bot list, and the bots beside them', () => {
  it("Pinterest's app and in-app browser are people; its crawler is a preview", () => {
    for (const ua of [
      'Pinterest for Android/9.0.4 (K83CA; 9)',
      'Pinterest for iOS/7.11 (iPhone7,2; 12.1.4)',
      'Mozilla/5.0 (Linux; Android 5.1.1; KFDOWI Build/LVY48F; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/70.0.3538.110 Safari/537.36 [Pinterest/Android]',
    ])
      expect(classifyUserAgent(ua), ua).toEqual({ kind: 'browser', automation: [] });
    expect(classifyUserAgent('Pinterest/0.2 (+http://www.pinterest.com/)').bot).toMatchObject({
      name: 'Pinterestbot',
      category: 'preview',
    });
  });

  it("WeChat's in-app browser is people; WeChat's developer tools probe is not", () => {
    const WECHAT =
      'Mozilla/5.0 (Linux; Android 9; SM-G965F Build/PPR1.180610.011; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.62 XWEB/2889 MMWEBSDK/20210902 Mobile Safari/537.36 MMWEBID/4096 MicroMessenger/8.0.15.2001(0x28000F41) Process/toolsmp WeChat/arm64 Weixin GPVersion/1 NetType/WIFI Language/en ABI/arm64';
    const DEVTOOLS =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 13_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/7.0.12(0x17000c2f) NetType/4G Language/zh_CN wechatdevtools qcloudcdn-xinan';
    expect(classifyUserAgent(WECHAT)).toEqual({ kind: 'browser', automation: [] });
    expect(classifyUserAgent(DEVTOOLS).kind).toBe('bot');
  });
});

describe("native apps' HTTP stacks", () => {
  it("an app's Dalvik or CFNetwork request is a person's app: People, with no sign", () => {
    for (const ua of [
      'Dalvik/2.1.0 (Linux; U; Android 5.1.1; AFTT Build/LVY48F) CTV',
      'Viber/12.8.0.1 CFNetwork/1121.2.2 Darwin/19.3.0',
      'Safari/5525.20.1 CFNetwork/339.5 Darwin/9.5.0 (i386) (MacBookPro2,1)',
    ])
      expect(classifyUserAgent(ua), ua).toEqual({ kind: 'browser', automation: [] });
  });
});

describe('AI agents', () => {
  it('are named and filed by what they do', () => {
    const cases: [string, string, string][] = [
      ['DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)', 'DuckAssistBot', 'ai-assistant'],
      ['Mozilla/5.0 (compatible; Google-NotebookLM; +https://notebooklm.google.com/)', 'Google-NotebookLM', 'ai-assistant'],
      ['LinkupBot/1.0 (LinkupBot for web indexing; https://linkup.so/bot; bot@linkup.so)', 'LinkupBot', 'ai-search'],
      ['Mozilla/5.0 (compatible; DeepSeekBot/1.0; +https://www.deepseek.com/bot)', 'DeepSeekBot', 'ai-training'],
      ['cohere-training-data-crawler (+crawler@cohere.ai)', 'cohere-training-data-crawler', 'ai-training'],
      ['cohere-ai', 'cohere-ai', 'ai-assistant'],
    ];
    for (const [ua, name, category] of cases) expect(classifyUserAgent(ua).bot, ua).toMatchObject({ name, category, ai: true });
  });

  it('a name that is also a common word counts only as a product token, never inside a browser string', () => {
    expect(classifyUserAgent('Mozilla/5.0 (compatible; Spider; +https://www.spider.com/)').bot).toMatchObject({
      name: 'Spider',
      category: 'ai-training',
    });
    expect(
      classifyUserAgent(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Safari/537.36; Devin/1.0; +devin.ai',
      ).bot,
    ).toMatchObject({ name: 'Devin', category: 'ai-assistant' });
    // VS Code: an Electron app whose product token is `Code/1.115.0`.
    expect(
      classifyUserAgent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.115.0 Chrome/142.0.7444.265 Electron/39.8.5 Safari/537.36',
      ),
    ).toEqual({ kind: 'browser', automation: [] });
  });

  it('a crawler of no known category that says it is an AI’s is filed as AI', () => {
    // omrilotan/isbot fixtures/downloaded/user-agents.net.json at 344052da664bde49579e21f1e62349280791efb3 (2026-07-20)
    expect(
      classifyUserAgent(
        'ethicrawl/0.1 (Ethical crawler respecting robots and AI directives; http://ethicrawl.ai/crawler; contact@ethicrawl.ai)',
      ).bot,
    ).toMatchObject({ category: 'ai-training', ai: true });
  });
});

// Strings built to make a pattern backtrack (not from a corpus: no real user agent is shaped so). A page report's
// User-Agent header reaches the classifier whole (up to Node's 16 KB of headers), a JSON record's up to 1,024
// characters with line breaks in it; the bot patterns backtracked over the first, the bot's name over the second.
describe('user agents built to make the patterns backtrack', () => {
  it('reads a user agent to its first 1,024 characters: 600 headers of 16 KB are classified in one pass each', () => {
    for (let i = 0; i < 600; i++) {
      const unit = ['Spider', 'Sogou', 'Exabot)'][i % 3] as string;
      const ua = `${i} ${unit.repeat(Math.floor(16_000 / unit.length))}`;
      expect(classifyUserAgent(ua).kind).toBeDefined();
    }
    // What the classifier sees past its first 1,024 characters counts for nothing.
    const head = `${'x'.repeat(1_024)}`;
    expect(classifyUserAgent(`${head} Googlebot/2.1 (+http://www.google.com/bot.html)`)).toEqual(classifyUserAgent(head));
  });

  it("names a bot from its own line: 200 records whose name's line ends in a run of punctuation", () => {
    for (let i = 0; i < 200; i++) {
      const cls = classifyUserAgent(`Spider${i}${'('.repeat(1_000)}\n(spider.com`);
      expect(cls.bot?.name).toMatch(/^Spider/);
    }
    expect(classifyUserAgent('Spider (spider.com)').bot?.name).toBe('Spider');
    expect(classifyUserAgent('Spiderling\nsee spider.com/a;b').bot?.name).toBe('Spiderling see spider.com');
  });
});
