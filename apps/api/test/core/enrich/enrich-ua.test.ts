import { classifyUserAgent } from '@us/protection';
import { describe, expect, it } from 'vitest';
import { deviceClassOf } from '../../../src/core/enrich/device.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const MAC_SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const GOOGLEBOT_SMARTPHONE =
  'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
const CHATGPT_USER = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const HEADLESS = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36';

describe('classifyUserAgent', () => {
  it('real browsers are browsers without automation signs', () => {
    for (const ua of [CHROME, MAC_SAFARI, IPHONE, IPAD, ANDROID])
      expect(classifyUserAgent(ua)).toEqual({ kind: 'browser', automation: [] });
  });
  it('Googlebot: search engine, verifiable, not AI', () => {
    for (const ua of [GOOGLEBOT, GOOGLEBOT_SMARTPHONE])
      expect(classifyUserAgent(ua)).toEqual({
        kind: 'bot',
        bot: { name: 'Googlebot', category: 'search-engine', ai: false, verifiable: true },
        automation: [],
      });
  });
  it('GPTBot: AI training', () => {
    expect(classifyUserAgent(GPTBOT).bot).toEqual({ name: 'GPTBot', category: 'ai-training', ai: true, verifiable: true });
  });
  it('ChatGPT-User: AI assistant', () => {
    expect(classifyUserAgent(CHATGPT_USER).bot).toMatchObject({ name: 'ChatGPT-User', category: 'ai-assistant', ai: true });
  });
  it('categories of other well-known bots', () => {
    const cases: [string, string, string][] = [
      ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'Bingbot', 'search-engine'],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
        'ClaudeBot',
        'ai-training',
      ],
      ['CCBot/2.0 (https://commoncrawl.org/faq/)', 'CCBot', 'ai-training'],
      ['Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)', 'OAI-SearchBot', 'ai-search'],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
        'PerplexityBot',
        'ai-search',
      ],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
        'Perplexity-User',
        'ai-assistant',
      ],
      ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'facebookexternalhit', 'preview'],
      ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Slackbot', 'preview'],
      ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', 'AhrefsBot', 'seo'],
      ['Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)', 'MJ12bot', 'seo'],
      ['Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)', 'UptimeRobot', 'monitor'],
      ['Mozilla/5.0 (compatible; archive.org_bot +http://archive.org/details/archive.org_bot)', 'archive.org_bot', 'archiver'],
      ['Wget/1.21.4', 'Wget', 'tool'],
      ['python-requests/2.32.3', 'python-requests', 'tool'],
      ['Go-http-client/2.0', 'Go-http-client', 'tool'],
      ['axios/1.7.7', 'axios', 'tool'],
    ];
    for (const [ua, name, category] of cases) expect(classifyUserAgent(ua).bot, ua).toMatchObject({ name, category });
  });
  it('curl is client software that never runs page scripts: a browser kind with that sign, named as a tool', () => {
    expect(classifyUserAgent('curl/8.4.0')).toEqual({
      kind: 'browser',
      bot: { name: 'curl', category: 'tool', ai: false, verifiable: false },
      automation: ['no-script-client'],
    });
  });
  it('an unknown declared crawler is a bot of category other', () => {
    const r = classifyUserAgent('Mozilla/5.0 (compatible; ZzqxNewCrawler/1.0; +http://example.com/bot)');
    expect(r.kind).toBe('bot');
    expect(r.bot).toMatchObject({ category: 'other', ai: false, verifiable: false });
  });
  it('HeadlessChrome stays a browser with an automation sign', () => {
    expect(classifyUserAgent(HEADLESS)).toEqual({ kind: 'browser', automation: ['headless-chrome'] });
  });
  it('an Electron app (Slack, Discord, VS Code) is a browser without signs: a person reads pages in it', () => {
    // omrilotan/isbot fixtures/browsers.yml, "Electron Application"
    const SLACK =
      'Mozilla/5.0 (Windows NT 10.0.18362; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.4.2 Chrome/78.0.3904.130 Electron/7.2.1 Safari/537.36 WindowsStore/10.0.18362 Sonic Slack_SSB/4.4.2';
    expect(classifyUserAgent(SLACK)).toEqual({ kind: 'browser', automation: [] });
  });
  it('other automation signs', () => {
    expect(
      classifyUserAgent('Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1')
        .automation,
    ).toContain('phantomjs');
    expect(classifyUserAgent('')).toEqual({ kind: 'browser', automation: ['no-user-agent'] });
    expect(classifyUserAgent(undefined).automation).toEqual(['no-user-agent']);
  });
});

describe('deviceClassOf', () => {
  it('classes real browsers', () => {
    expect(deviceClassOf(CHROME)).toBe('desktop');
    expect(deviceClassOf(MAC_SAFARI, 1512)).toBe('desktop');
    expect(deviceClassOf(IPHONE)).toBe('mobile');
    expect(deviceClassOf(ANDROID, 412)).toBe('mobile');
    expect(deviceClassOf(IPAD)).toBe('tablet');
  });
  it('bots are bots when the caller says so', () => {
    expect(deviceClassOf(GOOGLEBOT, undefined, true)).toBe('bot');
  });
  it('falls back to the width when the string says nothing', () => {
    expect(deviceClassOf('', 375)).toBe('mobile');
    expect(deviceClassOf('', 800)).toBe('tablet');
    expect(deviceClassOf('SomethingOdd/1.0', 1920)).toBe('desktop');
    expect(deviceClassOf('')).toBe('other');
  });
  it('answers a string seen before the same way, its width still deciding when the string says nothing', () => {
    for (let i = 0; i < 3; i++) {
      expect(deviceClassOf(IPHONE, 1920)).toBe('mobile');
      expect(deviceClassOf('SomethingOdd/2.0', 375)).toBe('mobile');
      expect(deviceClassOf('SomethingOdd/2.0', 1920)).toBe('desktop');
      expect(deviceClassOf('SomethingOdd/2.0')).toBe('other');
      expect(deviceClassOf(IPHONE, undefined, true)).toBe('bot');
    }
    // Strings too long to keep are classed each time, the same way.
    const long = `${IPHONE} ${'x'.repeat(600)}`;
    expect(deviceClassOf(long)).toBe('mobile');
    expect(deviceClassOf(long)).toBe('mobile');
  });
});
