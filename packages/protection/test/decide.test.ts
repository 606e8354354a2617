import { describe, expect, it } from 'vitest';
import {
  type BotMode,
  canonicalPath,
  classifyUserAgent,
  type Decision,
  decide,
  type ProtectionSettings,
  pathToDecide,
  type RequestFacts,
  type Rule,
  type Verification,
} from '../src/index.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const HEADLESS = CHROME.replace('Chrome/', 'HeadlessChrome/');
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const MJ12 = 'Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)';

interface Req {
  ua?: string;
  verification?: Verification;
  path?: string;
  asn?: number | null;
  hosting?: boolean;
  country?: string | null;
  pass?: boolean;
  memory?: string[];
  /** This request's own signs besides its user agent (`tls-mismatch`). */
  signs?: string[];
}

function facts(r: Req = {}): RequestFacts {
  return {
    path: r.path ?? '/pricing',
    ua: classifyUserAgent(r.ua ?? CHROME),
    verification: r.verification ?? 'unknown',
    asn: r.asn ?? 3320,
    hosting: r.hosting ?? false,
    country: r.country ?? 'DE',
    pass: r.pass ?? false,
    memory: r.memory ?? [],
    signs: r.signs ?? [],
  };
}

const settings = (mode: BotMode, over: Partial<ProtectionSettings> = {}): ProtectionSettings => ({
  mode,
  bots: 'allow',
  rules: [],
  ...over,
});

const rule = (action: Rule['action'], match: Rule['match'], label?: string): Rule => ({
  action,
  match,
  ...(label ? { label } : {}),
});

type Row = [what: string, settings: ProtectionSettings, request: Req, action: Decision['action'], reason: string];

const HOSTING = { asn: 16509, hosting: true };
const VERIFIED_GOOGLE = { ua: GOOGLEBOT, verification: 'verified' as const };

/** One row per step of the decision order and per mode, each with its exact reason. */
const ROWS: Row[] = [
  // 1. Always served, whatever the mode and the rules.
  [
    'robots.txt under a deny-everything rule',
    settings('block', { rules: [rule('deny', { path: '/' })] }),
    { path: '/robots.txt' },
    'allow',
    'always served: /robots.txt',
  ],
  [
    'security.txt to a refused bot',
    settings('block', { bots: 'deny' }),
    { path: '/.well-known/security.txt', ua: MJ12 },
    'allow',
    'always served: /.well-known/security.txt',
  ],
  // Mode off.
  ['off serves a curl client', settings('off'), { ua: 'curl/8.4.0', ...HOSTING }, 'allow', 'off: protection is off'],
  // 2. Rules: first match decides.
  [
    'the first matching rule wins',
    settings('challenge', { rules: [rule('challenge', { path: '/admin' }, 'admin'), rule('deny', { path: '/' }, 'all')] }),
    { path: '/admin/users' },
    'challenge',
    'rule: admin',
  ],
  [
    'a rule without a label is named by position',
    settings('challenge', { rules: [rule('allow', { path: '/x' }), rule('deny', { country: 'de' })] }),
    {},
    'deny',
    'rule: #2',
  ],
  [
    'every named field must hold',
    settings('challenge', { rules: [rule('deny', { country: 'DE', asn: [1, 2] }, 'de+asn')] }),
    {},
    'allow',
    'browser: no sign of automation',
  ],
  [
    'an empty match never matches',
    settings('challenge', { rules: [rule('deny', {}, 'empty')] }),
    {},
    'allow',
    'browser: no sign of automation',
  ],
  [
    'a bot rule by name is case-insensitive',
    settings('challenge', { rules: [rule('deny', { bot: ['gptbot'] }, 'no gpt')] }),
    { ua: GPTBOT, verification: 'verified' },
    'deny',
    'rule: no gpt',
  ],
  [
    'a category list and the ai flag',
    settings('challenge', { rules: [rule('challenge', { category: ['ai-training', 'ai-search'], ai: true }, 'ai')] }),
    { ua: GPTBOT },
    'challenge',
    'rule: ai',
  ],
  [
    'kind verified-bot',
    settings('challenge', { rules: [rule('deny', { kind: 'verified-bot' }, 'vb')] }),
    { ua: GPTBOT, verification: 'verified' },
    'deny',
    'rule: vb',
  ],
  [
    'verified false',
    settings('challenge', { rules: [rule('deny', { verified: false, kind: 'bot' }, 'unverified bots')] }),
    { ua: MJ12 },
    'deny',
    'rule: unverified bots',
  ],
  // 3. Verified search engines: immune to rules by network, country and path only.
  [
    'a country rule never touches verified Googlebot',
    settings('block', { rules: [rule('deny', { country: 'DE' }, 'no DE')] }),
    { ...VERIFIED_GOOGLE, country: 'DE' },
    'allow',
    'verified search engine: Googlebot',
  ],
  [
    'a path and network rule neither',
    settings('block', { rules: [rule('deny', { path: '/', asn: 15169 }, 'net')] }),
    { ...VERIFIED_GOOGLE, asn: 15169 },
    'allow',
    'verified search engine: Googlebot',
  ],
  [
    'a rule naming the bot does apply',
    settings('challenge', { rules: [rule('deny', { bot: 'Googlebot', path: '/private' }, 'hide')] }),
    { ...VERIFIED_GOOGLE, path: '/private/x' },
    'deny',
    'rule: hide',
  ],
  [
    'a rule by category applies too',
    settings('challenge', { rules: [rule('challenge', { category: 'search-engine' }, 'se')] }),
    VERIFIED_GOOGLE,
    'challenge',
    'rule: se',
  ],
  // 4. A claim to be a verifiable crawler that did not verify is refused.
  [
    'an unverified Googlebot is refused',
    settings('challenge'),
    { ua: GOOGLEBOT, verification: 'failed' },
    'deny',
    'unverified claim to be Googlebot',
  ],
  [
    'with no way to verify it here it follows bots',
    settings('challenge', { bots: 'challenge' }),
    { ua: GOOGLEBOT, verification: 'unknown' },
    'challenge',
    'declared bot: Googlebot (bots: challenge)',
  ],
  // 5. Other verified bots are served; unverifiable declared bots follow `bots`.
  [
    'a verified AI crawler is served',
    settings('challenge', { bots: 'deny' }),
    { ua: GPTBOT, verification: 'verified' },
    'allow',
    'verified bot: GPTBot',
  ],
  ['bots: allow', settings('challenge'), { ua: MJ12 }, 'allow', 'declared bot: MJ12bot (bots: allow)'],
  [
    'bots: challenge',
    settings('challenge', { bots: 'challenge' }),
    { ua: MJ12 },
    'challenge',
    'declared bot: MJ12bot (bots: challenge)',
  ],
  [
    'bots: challenge with a passed check',
    settings('challenge', { bots: 'challenge' }),
    { ua: MJ12, pass: true },
    'allow',
    'check passed within the last day (declared bot: MJ12bot)',
  ],
  ['bots: deny', settings('block', { bots: 'deny' }), { ua: MJ12 }, 'deny', 'declared bot: MJ12bot (bots: deny)'],
  // 6. Browsers.
  ['a plain browser is served', settings('challenge'), {}, 'allow', 'browser: no sign of automation'],
  ['a browser on a hosting network is challenged', settings('challenge'), HOSTING, 'challenge', 'hosting network: AS16509'],
  [
    'the network alone never refuses: block serves it',
    settings('block'),
    HOSTING,
    'allow',
    'hosting network: AS16509 (the network alone never refuses anyone)',
  ],
  [
    'client software that never runs page scripts is challenged',
    settings('challenge'),
    { ua: 'curl/8.4.0' },
    'challenge',
    'client software never runs page scripts: curl',
  ],
  [
    'and refused in block mode',
    settings('block'),
    { ua: 'python-requests/2.32.3' },
    'deny',
    'client software never runs page scripts: python-requests',
  ],
  ['one automation sign is not enough', settings('challenge'), { ua: HEADLESS }, 'allow', 'browser: no sign of automation'],
  [
    'two independent signs in the last day are',
    settings('challenge'),
    { ua: HEADLESS, memory: ['burst'] },
    'challenge',
    'automation signs: headless-chrome, burst',
  ],
  // Block mode refuses on the browser's own signs only: remembered ones (behaviour memory, per address and
  // user agent) may have been earned by another browser behind the same carrier NAT, so they only challenge.
  [
    'two remembered signs in block mode: challenged, not refused',
    settings('block'),
    { memory: ['burst', 'no-script'] },
    'challenge',
    "automation signs: burst, no-script (block refuses only on a browser's own signs: remembered ones may be another's on the same address)",
  ],
  [
    'one sign of its own and one remembered in block mode: challenged',
    settings('block'),
    { ua: HEADLESS, memory: ['burst'] },
    'challenge',
    "automation signs: headless-chrome, burst (block refuses only on a browser's own signs: remembered ones may be another's on the same address)",
  ],
  [
    'remembered signs and a hosting network in block mode: challenged',
    settings('block'),
    { ...HOSTING, memory: ['burst', 'failed-check'] },
    'challenge',
    "automation signs: burst, failed-check; hosting network: AS16509 (block refuses only on a browser's own signs: remembered ones may be another's on the same address)",
  ],
  [
    'two signs of its own (user agent and this request) in block mode: refused',
    settings('block'),
    { ua: HEADLESS, signs: ['tls-mismatch'], memory: ['burst'] },
    'deny',
    'automation signs: headless-chrome, tls-mismatch, burst',
  ],
  [
    'no-script software with remembered signs in block mode: refused on its own sign',
    settings('block'),
    { ua: 'curl/8.4.0', ...HOSTING, memory: ['burst', 'failed-check'] },
    'deny',
    'client software never runs page scripts: curl; automation signs: burst, failed-check; hosting network: AS16509',
  ],
  [
    'remembered signs in challenge mode: challenged as before',
    settings('challenge'),
    { memory: ['burst', 'no-script'] },
    'challenge',
    'automation signs: burst, no-script',
  ],
  [
    'a passed check serves a flagged browser',
    settings('block'),
    { ...HOSTING, memory: ['burst', 'no-script'], pass: true },
    'allow',
    'check passed within the last day',
  ],
  // A passed check satisfies challenge rules, never deny rules.
  [
    'a pass satisfies a challenge rule',
    settings('challenge', { rules: [rule('challenge', { path: '/' }, 'all')] }),
    { pass: true },
    'allow',
    'check passed within the last day (rule: all)',
  ],
  [
    'a pass does not get past a deny rule',
    settings('challenge', { rules: [rule('deny', { country: 'DE' }, 'no DE')] }),
    { pass: true },
    'deny',
    'rule: no DE',
  ],
  // Mode log: everything served, the reason says what would have happened.
  ['log: would challenge', settings('log'), HOSTING, 'allow', 'log: would challenge: hosting network: AS16509'],
  [
    'log: would deny',
    settings('log'),
    { ua: GOOGLEBOT, verification: 'failed' },
    'allow',
    'log: would deny: unverified claim to be Googlebot',
  ],
  ['log: would allow', settings('log'), {}, 'allow', 'log: would allow: browser: no sign of automation'],
  [
    'log: a rule',
    settings('log', { rules: [rule('deny', { path: '/admin' }, 'admin')] }),
    { path: '/admin' },
    'allow',
    'log: would deny: rule: admin',
  ],
];

describe('decide: the decision order, step by step and mode by mode', () => {
  it.each(ROWS)('%s', (_what, s, request, action, reason) => {
    const d = decide(s, facts(request));
    expect({ action: d.action, reason: d.reason }).toEqual({ action, reason });
  });
});

describe('decide: risk and signals', () => {
  const risk = (r: Req) => decide(settings('challenge'), facts(r)).risk;

  it('is -1 for a declared bot and 0-100 for a browser, growing with its signs', () => {
    expect(risk({ ua: GOOGLEBOT, verification: 'verified' })).toBe(-1);
    expect(risk({ ua: MJ12 })).toBe(-1);
    expect(risk({})).toBe(0);
    expect(risk(HOSTING)).toBe(35);
    expect(risk({ ua: 'curl/8.4.0' })).toBe(50);
    expect(risk({ ua: HEADLESS, memory: ['burst'] })).toBe(50);
    expect(risk({ ua: 'curl/8.4.0', ...HOSTING, memory: ['burst', 'no-script'] })).toBe(100);
  });

  it('lists every distinct behaviour sign seen', () => {
    const d = decide(settings('challenge'), {
      ...facts({ ua: HEADLESS, memory: ['burst', 'headless-chrome'] }),
      signs: ['tls-mismatch'],
    });
    expect(d.signals).toEqual(['headless-chrome', 'tls-mismatch', 'burst']);
  });
});

// The attack: a site denies `/admin`; a stranger asks `//admin`, `/./admin` or `/%61dmin`, which origins serve as
// `/admin`. Matched raw, none was refused.
describe('path rules match the path an origin serves', () => {
  const denyAdmin = settings('challenge', { rules: [rule('deny', { path: '/admin' }, 'admin')] });
  it.each([
    '/admin',
    '//admin',
    '/./admin',
    '/%61dmin',
    '/%61%64min/users',
    '/x/../admin',
    '/../admin',
    '///admin/./x',
    // nginx decodes %2F before resolving dot segments; Windows servers take a backslash as a slash.
    '/%2Fadmin',
    '/x%2F..%2Fadmin',
    '/x%5C..%5Cadmin',
    '/x\\..\\admin',
    // Express, IIS and ASP.NET route without regard to case.
    '/ADMIN',
    '/Admin/users',
  ])('%s is refused by a rule on /admin', (path) => {
    expect(decide(denyAdmin, facts({ path }))).toMatchObject({ action: 'deny', reason: 'rule: admin' });
  });
  it.each(['/admi', '/a%2Fdmin', '/blog/admin', '/x/admin/..'])('%s is not under /admin', (path) => {
    expect(decide(denyAdmin, facts({ path })).action).not.toBe('deny');
  });
  it('writes escapes of other characters in capitals and keeps them', () => {
    expect(canonicalPath('/a%3fb%7e')).toBe('/a%3Fb~');
    expect(canonicalPath('/a%2fb')).toBe('/a/b');
    expect(canonicalPath('/a/b/.')).toBe('/a/b/');
    expect(canonicalPath('/a/..')).toBe('/');
  });
  it('sends a long path to be decided made canonical first, then cut', () => {
    const long = `/${'a'.repeat(2_100)}/../admin?x=1`;
    expect(pathToDecide(long, 2_048)).toBe('/admin?x=1');
    expect(pathToDecide(`/admin/${'b'.repeat(3_000)}`, 2_048)).toHaveLength(2_048);
    expect(pathToDecide('/shop/./cart?a=/../b', 2_048)).toBe('/shop/cart?a=/../b');
  });
});

describe('the slimmed crawler list', () => {
  it('holds exactly the patterns and tags of the installed crawler-user-agents', async () => {
    const { default: full } = await import('crawler-user-agents');
    const { default: slim } = await import('../src/crawlers.json', { with: { type: 'json' } });
    expect(slim).toEqual(
      full.map((c: { pattern: string; tags?: string[] }) =>
        c.tags?.length ? { pattern: c.pattern, tags: c.tags } : { pattern: c.pattern },
      ),
    );
  });
});
