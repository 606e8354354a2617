import { type ParsedIp, parseIp } from '../../core/enrich/ip.ts';
import type { DatedData } from '../../core/stale-data.ts';
import published from './crawler-ranges.json' with { type: 'json' };

/**
 * The IP ranges crawler operators publish (Google, Bing, Apple, OpenAI, Perplexity, DuckDuckGo, Common
 * Crawl), from the offline copy `crawler-ranges.json`: each list there names the operator's URL, the public
 * mirror it was copied from and the dates. An address inside a list of the crawler it claims to be is that
 * crawler, with no DNS question asked.
 */
export type RangeList = keyof typeof published.lists;

interface Prefix {
  v: 4 | 6;
  /** IPv4: the network as a uint32; IPv6: the top 64 bits and the bottom 64 bits. */
  n: number;
  hi: bigint;
  lo: bigint;
  bits: number;
}

const ALL_ONES_64 = (1n << 64n) - 1n;

function parsePrefix(cidr: string): Prefix {
  const [address, length] = cidr.split('/');
  const ip = parseIp(address);
  const bits = Number(length);
  if (!ip || !Number.isInteger(bits)) throw new Error(`crawler-ranges.json: not a prefix: ${cidr}`);
  return ip.v === 4 ? { v: 4, n: ip.n, hi: 0n, lo: 0n, bits } : { v: 6, n: 0, hi: ip.hi, lo: ip.lo, bits };
}

/** The top `bits` of a 64-bit half as a mask (0 ≤ bits ≤ 64). */
const mask64 = (bits: number) => (bits <= 0 ? 0n : (ALL_ONES_64 << BigInt(64 - bits)) & ALL_ONES_64);

function contains(p: Prefix, ip: ParsedIp): boolean {
  if (ip.v === 4) {
    if (p.v !== 4) return false;
    if (p.bits === 0) return true;
    const shift = 32 - p.bits;
    return ip.n >>> shift === p.n >>> shift;
  }
  if (p.v !== 6) return false;
  const hiMask = mask64(Math.min(64, p.bits));
  const loMask = mask64(p.bits - 64);
  return (ip.hi & hiMask) === (p.hi & hiMask) && (ip.lo & loMask) === (p.lo & loMask);
}

let parsed: Map<RangeList, Prefix[]> | null = null;

function lists(): Map<RangeList, Prefix[]> {
  if (!parsed) {
    parsed = new Map();
    for (const [name, list] of Object.entries(published.lists)) {
      parsed.set(name as RangeList, list.prefixes.map(parsePrefix));
    }
  }
  return parsed;
}

/** Whether `ip` lies in any of the named published lists. */
export function inPublishedRanges(ip: string, names: readonly RangeList[]): boolean {
  const p = parseIp(ip);
  if (!p) return false;
  const all = lists();
  return names.some((name) => all.get(name)?.some((prefix) => contains(prefix, p)));
}

/** Where a list came from (for the docs and tests). */
export function rangeSource(name: RangeList) {
  const { prefixes: _prefixes, ...about } = published.lists[name];
  return about;
}

/**
 * The offline copy's age: its oldest list, by the day the mirror was copied (or, without one, the day the
 * operator's own file was made).
 */
export function crawlerRangesDated(): DatedData {
  const dates = Object.values(published.lists).map((list) => {
    const m: { copied?: string; sourceCreated?: string } = list.mirror;
    return m.copied ?? m.sourceCreated ?? '';
  });
  return {
    what: "Crawler operators' IP ranges (apps/api/src/features/protection/crawler-ranges.json, oldest list)",
    date: dates.sort()[0] ?? '',
    update: 'fetch each list from its source URL into crawler-ranges.json (its "about" says how)',
  };
}
