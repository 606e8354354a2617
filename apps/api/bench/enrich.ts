/**
 * Micro-benchmark of collect enrichment: `node --expose-gc apps/api/bench/enrich.ts` (Node 24, from /work/main).
 * Prints table load time and memory, then lookups per second for each function.
 */
import { classifyUserAgent } from '@us/protection';
import { deviceClassOf } from '../src/core/enrich/device.ts';
import { countryOf } from '../src/core/enrich/geo.ts';
import { enrich } from '../src/core/enrich/index.ts';
import { loadNetworks, networkOf } from '../src/core/enrich/network.ts';
import { softwareOf } from '../src/core/enrich/software.ts';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

gc();
const m0 = process.memoryUsage();
let t = performance.now();
const rows = loadNetworks();
const loadMs = performance.now() - t;
gc();
const m1 = process.memoryUsage();
console.log(
  `ASN tables: ${rows.v4} IPv4 + ${rows.v6} IPv6 rows, ${rows.orgs} organisations; loaded in ${loadMs.toFixed(0)} ms;` +
    ` heap +${mb(m1.heapUsed - m0.heapUsed)}, typed arrays +${mb(m1.arrayBuffers - m0.arrayBuffers)}, rss +${mb(m1.rss - m0.rss)}`,
);
t = performance.now();
countryOf('8.8.8.8');
console.log(`geo mmdb loaded in ${(performance.now() - t).toFixed(0)} ms`);

function randomV4(): string {
  return `${1 + Math.floor(Math.random() * 222)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
}
function randomV6(): string {
  const g = () => Math.floor(Math.random() * 0x10000).toString(16);
  return `2${Math.floor(Math.random() * 0x1000)
    .toString(16)
    .padStart(3, '0')}:${g()}:${g()}:${g()}::${g()}`;
}
const v4 = Array.from({ length: 10_000 }, randomV4);
const v6 = Array.from({ length: 10_000 }, randomV6);
const uas = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; ZzqxNewCrawler/1.0; +http://example.com/bot)',
];

function bench(name: string, n: number, fn: (i: number) => unknown) {
  for (let i = 0; i < Math.min(n, 2000); i++) fn(i);
  const s = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  const ms = performance.now() - s;
  console.log(`${name.padEnd(28)} ${Math.round((n / ms) * 1000).toLocaleString('en')} /s`);
}

bench('networkOf (IPv4)', 500_000, (i) => networkOf(v4[i % v4.length]));
bench('networkOf (IPv6)', 200_000, (i) => networkOf(v6[i % v6.length]));
bench('countryOf (IPv4)', 300_000, (i) => countryOf(v4[i % v4.length]));
bench('countryOf (IPv6)', 200_000, (i) => countryOf(v6[i % v6.length]));
bench('classifyUserAgent', 200_000, (i) => classifyUserAgent(uas[i % uas.length]));
bench('deviceClassOf', 100_000, (i) => deviceClassOf(uas[i % uas.length], 1280));
bench('softwareOf (kept)', 200_000, (i) => softwareOf(uas[i % uas.length]));
// Strings never seen: each one read by the patterns, then kept (a flood of new strings does this every time).
const fresh = Array.from({ length: 100_000 }, (_, i) => `${uas[i % 3]} r${i}`.normalize());
bench('softwareOf (new string)', 100_000, (i) => softwareOf(fresh[i]));
bench('enrich (all)', 100_000, (i) => enrich({ ip: v4[i % v4.length], ua: uas[i % uas.length], width: 1280 }));
