// The bot-protection decision on one core: `decide()` alone over a mix of prepared request facts, and the
// user-agent classification plus `decide()` over a mix of user agents (what an edge does per request besides
// its HMACs), each beside a baseline of one Set lookup per request (the cheapest possible gate: step 1 only).
import {
  ALWAYS_SERVED,
  classifyUserAgent,
  decide,
  isHostingNetwork,
  type ProtectionSettings,
  type RequestFacts,
} from '@us/protection';

const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'curl/8.5.0',
  'python-requests/2.32.3',
];
const NETWORKS = [
  { asn: 3320, org: 'Deutsche Telekom AG', country: 'DE' },
  { asn: 7922, org: 'Comcast Cable Communications, LLC', country: 'US' },
  { asn: 16509, org: 'Amazon.com, Inc.', country: 'US' },
  { asn: 15169, org: 'Google LLC', country: 'US' },
  { asn: 24940, org: 'Hetzner Online GmbH', country: 'DE' },
];
const PATHS = ['/', '/pricing', '/blog/how-we-count', '/api/cart', '/admin/login', '/robots.txt'];

/** A site in challenge mode with a handful of rules, as a customer would set it (the edge bench's too). */
export const SETTINGS: ProtectionSettings = {
  mode: 'challenge',
  bots: 'challenge',
  rules: [
    { action: 'allow', label: 'uptime', match: { bot: ['UptimeRobot', 'Better Stack'] } },
    { action: 'deny', label: 'no AI training', match: { category: 'ai-training' } },
    { action: 'challenge', label: 'admin', match: { path: '/admin' } },
    { action: 'deny', label: 'sanctioned', match: { country: ['KP', 'IR'] } },
    { action: 'allow', label: 'office', match: { asn: 64512 } },
  ],
};

function factsOf(i: number, ua = classifyUserAgent(UAS[i % UAS.length])): RequestFacts {
  const net = NETWORKS[i % NETWORKS.length]!;
  return {
    path: PATHS[i % PATHS.length]!,
    ua,
    verification: i % 3 === 0 ? 'verified' : i % 3 === 1 ? 'failed' : 'unknown',
    asn: net.asn,
    hosting: isHostingNetwork(net),
    country: net.country,
    pass: i % 7 === 0,
    memory: i % 11 === 0 ? ['burst'] : undefined,
    signs: i % 13 === 0 ? ['tls-mismatch'] : undefined,
  };
}

export interface Rate {
  perSecond: number;
  nsPerOp: number;
}

/** Best of 3 timed runs of ~`ms` each, after a warm-up. */
function rate(fn: (i: number) => number, ms = 700): Rate {
  let sink = 0;
  for (let i = 0; i < 50_000; i++) sink += fn(i);
  let best = 0;
  for (let run = 0; run < 3; run++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      for (let k = 0; k < 10_000; k++, n++) sink += fn(n);
      now = performance.now();
    }
    best = Math.max(best, (n / (now - start)) * 1000);
  }
  if (sink === -1) console.log(sink); // keeps the work observable
  return { perSecond: best, nsPerOp: 1e9 / best };
}

/**
 * A site with 20 path rules of 5 prefixes each, asked by a stranger whose 2 KB path is escapes to decode: every rule
 * reads the path made canonical.
 */
const PATH_RULES: ProtectionSettings = {
  ...SETTINGS,
  rules: Array.from({ length: 20 }, (_, r) => ({
    action: 'challenge' as const,
    label: `area ${r}`,
    match: { path: Array.from({ length: 5 }, (_, p) => `/area-${r}/part-${p}`) },
  })),
};
const CRAFTED_PATH = `/${'%00.'.repeat(510)}`;

export function protectionBench(): {
  baseline: Rate;
  decide: Rate;
  classifyAndDecide: Rate;
  classifyNew: Rate;
  pathRules: Rate;
  craftedPath: Rate;
} {
  const facts = Array.from({ length: 1000 }, (_, i) => factsOf(i));
  // Each request its own path, as a stranger would send them (one path again and again is decoded once).
  const crafted = facts.map((f, i) => ({ ...f, path: `${CRAFTED_PATH}${i}` }));
  const uaIdx = Array.from({ length: 1000 }, (_, i) => i);
  return {
    baseline: rate((i) => (ALWAYS_SERVED.has(facts[i % 1000]!.path) ? 1 : 0)),
    decide: rate((i) => decide(SETTINGS, facts[i % 1000]!).risk),
    classifyAndDecide: rate((i) => {
      const k = uaIdx[i % 1000]!;
      return decide(SETTINGS, factsOf(k, classifyUserAgent(UAS[k % UAS.length]))).risk;
    }),
    // Every string one never seen before (a version number that differs), so the classification's
    // memory of recent strings never answers: its regular expressions run each time.
    classifyNew: rate((i) => {
      const k = uaIdx[i % 1000]!;
      return decide(SETTINGS, factsOf(k, classifyUserAgent(`${UAS[k % UAS.length]} r/${i}`))).risk;
    }, 300),
    pathRules: rate((i) => decide(PATH_RULES, facts[i % 1000]!).risk, 300),
    craftedPath: rate((i) => decide(PATH_RULES, crafted[i % 1000]!).risk, 300),
  };
}

export function formatProtection(r: ReturnType<typeof protectionBench>): string {
  const row = (name: string, x: Rate, base?: Rate) =>
    `${name.padEnd(34)} ${Math.round(x.perSecond).toLocaleString('en').padStart(12)} /s   ${x.nsPerOp.toFixed(0).padStart(5)} ns each` +
    (base ? `   ${((x.perSecond / base.perSecond) * 100).toFixed(1)}% of the baseline` : '');
  return [
    row('protection: Set lookup (baseline)', r.baseline),
    row('protection: decide()', r.decide, r.baseline),
    row('protection: classifyUserAgent+decide', r.classifyAndDecide, r.baseline),
    row('protection: same, every UA string new', r.classifyNew, r.baseline),
    row('protection: decide(), 20 path rules', r.pathRules, r.baseline),
    `${row('protection: same, 2 KB of escapes', r.craftedPath, r.baseline)}   (${((r.craftedPath.perSecond / r.pathRules.perSecond) * 100).toFixed(1)}% of ordinary paths)`,
  ].join('\n');
}

if (process.argv[1] === import.meta.filename) console.log(formatProtection(protectionBench()));
