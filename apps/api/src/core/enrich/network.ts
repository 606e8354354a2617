import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseIp } from './ip.ts';

/**
 * Network operator (autonomous system) of an address, from the ip-location-db `asn` CSVs
 * (CC BY 4.0: RouteViews, NRO and DB-IP; see CREDITS.md).
 *
 * Rows are `start,end,asn,org` with inclusive, sorted, non-overlapping ranges. They are loaded once, on first
 * use, into sorted typed arrays: IPv4 as uint32 starts/ends (from the `-num` file), IPv6 as two 64-bit halves.
 * Organisation names are interned (one string per distinct name). Lookups are a binary search.
 */
export interface Network {
  asn: number;
  org: string;
}

interface V4Table {
  start: Uint32Array;
  end: Uint32Array;
  asn: Uint32Array;
  org: Uint32Array;
}
interface V6Table {
  startHi: BigUint64Array;
  startLo: BigUint64Array;
  endHi: BigUint64Array;
  endLo: BigUint64Array;
  asn: Uint32Array;
  org: Uint32Array;
}

const orgs: string[] = [];
const orgIndex = new Map<string, number>();
let v4: V4Table | null = null;
let v6: V6Table | null = null;

function intern(name: string): number {
  let i = orgIndex.get(name);
  if (i === undefined) {
    i = orgs.length;
    // Copy, so the kept name does not pin the whole CSV text in memory (V8 sliced strings share their parent).
    orgs.push(Buffer.from(name, 'utf8').toString('utf8'));
    orgIndex.set(name, i);
  }
  return i;
}

function readCsv(name: string): string {
  return readFileSync(createRequire(import.meta.url).resolve(`@ip-location-db/asn/${name}`), 'utf8');
}

/** Splits one row into its first three fields and the organisation (which may be quoted, with "" escapes). */
function* rows(text: string): Generator<[string, string, number, string]> {
  let pos = 0;
  const len = text.length;
  while (pos < len) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = len;
    const line = text.charCodeAt(nl - 1) === 13 ? text.slice(pos, nl - 1) : text.slice(pos, nl);
    pos = nl + 1;
    if (!line) continue;
    const c1 = line.indexOf(',');
    const c2 = line.indexOf(',', c1 + 1);
    const c3 = line.indexOf(',', c2 + 1);
    if (c1 < 0 || c2 < 0 || c3 < 0) continue;
    let org = line.slice(c3 + 1);
    if (org.startsWith('"') && org.endsWith('"')) org = org.slice(1, -1).replaceAll('""', '"');
    yield [line.slice(0, c1), line.slice(c1 + 1, c2), Number(line.slice(c2 + 1, c3)), org];
  }
}

function loadV4(): V4Table {
  const text = readCsv('asn-ipv4-num.csv');
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  n++;
  const t: V4Table = { start: new Uint32Array(n), end: new Uint32Array(n), asn: new Uint32Array(n), org: new Uint32Array(n) };
  let k = 0;
  for (const [s, e, asn, org] of rows(text)) {
    t.start[k] = Number(s);
    t.end[k] = Number(e);
    t.asn[k] = asn;
    t.org[k] = intern(org);
    k++;
  }
  return { start: t.start.slice(0, k), end: t.end.slice(0, k), asn: t.asn.slice(0, k), org: t.org.slice(0, k) };
}

const MASK64 = (1n << 64n) - 1n;

function loadV6(): V6Table {
  const text = readCsv('asn-ipv6-num.csv');
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  n++;
  const t: V6Table = {
    startHi: new BigUint64Array(n),
    startLo: new BigUint64Array(n),
    endHi: new BigUint64Array(n),
    endLo: new BigUint64Array(n),
    asn: new Uint32Array(n),
    org: new Uint32Array(n),
  };
  let k = 0;
  for (const [s, e, asn, org] of rows(text)) {
    const a = BigInt(s);
    const b = BigInt(e);
    t.startHi[k] = a >> 64n;
    t.startLo[k] = a & MASK64;
    t.endHi[k] = b >> 64n;
    t.endLo[k] = b & MASK64;
    t.asn[k] = asn;
    t.org[k] = intern(org);
    k++;
  }
  return {
    startHi: t.startHi.slice(0, k),
    startLo: t.startLo.slice(0, k),
    endHi: t.endHi.slice(0, k),
    endLo: t.endLo.slice(0, k),
    asn: t.asn.slice(0, k),
    org: t.org.slice(0, k),
  };
}

function tableV4(): V4Table {
  if (!v4) {
    v4 = loadV4();
    if (v6) orgIndex.clear(); // both loaded: the name index is no longer needed
  }
  return v4;
}

function tableV6(): V6Table {
  if (!v6) {
    v6 = loadV6();
    if (v4) orgIndex.clear();
  }
  return v6;
}

/** Loads both tables now (otherwise they load on first lookup). Returns row counts. */
export function loadNetworks(): { v4: number; v6: number; orgs: number } {
  const a = tableV4();
  const b = tableV6();
  return { v4: a.start.length, v6: b.asn.length, orgs: orgs.length };
}

function lookupV4(n: number): number {
  const t = tableV4();
  let lo = 0;
  let hi = t.start.length - 1;
  // Last row whose start <= n.
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (t.start[mid]! <= n) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && n <= t.end[hi]! ? hi : -1;
}

function lookupV6(aHi: bigint, aLo: bigint): number {
  const t = tableV6();
  let lo = 0;
  let hi = t.asn.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const sHi = t.startHi[mid]!;
    if (sHi < aHi || (sHi === aHi && t.startLo[mid]! <= aLo)) lo = mid + 1;
    else hi = mid - 1;
  }
  if (hi < 0) return -1;
  const eHi = t.endHi[hi]!;
  return aHi < eHi || (aHi === eHi && aLo <= t.endLo[hi]!) ? hi : -1;
}

/** The autonomous system announcing an address, or null (private, reserved, unrouted or malformed). */
export function networkOf(ip: string | null | undefined): Network | null {
  const p = parseIp(ip);
  if (!p) return null;
  if (p.v === 4) {
    const i = lookupV4(p.n);
    if (i < 0) return null;
    const t = tableV4();
    return t.asn[i]! > 0 ? { asn: t.asn[i]!, org: orgs[t.org[i]!]! } : null;
  }
  const i = lookupV6(p.hi, p.lo);
  if (i < 0) return null;
  const t = tableV6();
  return t.asn[i]! > 0 ? { asn: t.asn[i]!, org: orgs[t.org[i]!]! } : null;
}
