import { describe, expect, it } from 'vitest';
import { giveColumnBuffersBack, takeColumnBuffers } from '../src/analytics/binary-array.ts';
import { COLUMNS } from '../src/analytics/columns.ts';
import { pageviewRow } from '../src/analytics/factories.ts';
import { prepareChunk } from '../src/analytics/insert.ts';
import type { PageviewRow } from '../src/analytics/rows.ts';

const SITE = '0190a8c4-1e4b-7c2d-9f00-000000000001';
const AT = new Date('2026-11-26T12:00:00Z');
/** Row `n`, every value fixed (its id too), a bot every third. */
const row = (n: number, extra: Partial<PageviewRow> = {}) =>
  pageviewRow(SITE, AT, {
    id: `0190a8c4-1e4b-7c2d-9f00-${String(n).padStart(12, '0')}`,
    pageviewId: `pv-${n}`,
    visitor: `v-${n}`,
    lane: n % 3 ? 'human' : 'bot',
    path: `/p/${n}`,
    ...extra,
  });
/** The parameter index of a pageviews column (site_id, day and id come first). */
const param = (column: string) => 3 + COLUMNS.pageviews.findIndex(([c]) => c === column);

describe('column buffers kept between inserts', () => {
  it('keeps a usual set for the next insert, not one grown past 8 MB by a flush of long texts', () => {
    // Whatever earlier tests left is taken first.
    for (let set = takeColumnBuffers(); set.length; set = takeColumnBuffers()) {}
    const usual = [Buffer.alloc(1024), Buffer.alloc(64 * 1024)];
    giveColumnBuffersBack(usual);
    expect(takeColumnBuffers()).toBe(usual);
    giveColumnBuffersBack([Buffer.alloc(5 * 1024 * 1024), Buffer.alloc(4 * 1024 * 1024)]);
    expect(takeColumnBuffers()).toEqual([]);
  });

  it('writes a later insert into the kept buffers, and its arrays read as its own rows', async () => {
    for (let set = takeColumnBuffers(); set.length; set = takeColumnBuffers()) {}
    const first = await prepareChunk('pageviews', [row(1, { path: '/first-and-longer' }), row(2)]);
    giveColumnBuffersBack(first.buffers);
    const second = await prepareChunk('pageviews', [row(3, { path: '/second' })]);
    expect(second.buffers).toBe(first.buffers);
    expect(readArray(second.params[param('path')] as Buffer).elements).toEqual(['/second']);
  });
});

describe('preparing an insert statement', () => {
  it('lets the event loop turn while it prepares a large batch, instead of holding it for the whole batch', async () => {
    const rows = Array.from({ length: 1000 }, (_, n) => row(n));
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const prepared = await prepareChunk('pageviews', rows);
    ticking = false;
    // 1,000 rows at 128 a turn: the loop turned at least 7 times before they were ready (0 when prepared in one go).
    expect(turns).toBeGreaterThanOrEqual(7);
    expect(prepared.rows).toBe(1000);
  });

  it('encodes every column as one binary array, text as it is and nulls as null, with the counts the tally needs', async () => {
    const prepared = await prepareChunk('pageviews', [
      row(1, { path: '/a"b\\c', referrerHost: null }),
      row(2, { path: 'NULL', referrerHost: 'ref.example', windowWidth: 1440 }),
      row(3, { path: '/x,y {z} ünï 😀' }),
    ]);
    expect(readArray(prepared.params[0] as Buffer)).toEqual({ oid: 2950, hasNull: false, elements: [SITE, SITE, SITE] });
    // Dates: days since 2000-01-01 (2026-11-26 is day 9826).
    expect(readArray(prepared.params[1] as Buffer)).toEqual({ oid: 1082, hasNull: false, elements: [9826, 9826, 9826] });
    expect(readArray(prepared.params[param('path')] as Buffer)).toEqual({
      oid: 25,
      hasNull: false,
      elements: ['/a"b\\c', 'NULL', '/x,y {z} ünï 😀'],
    });
    expect(readArray(prepared.params[param('referrer_host')] as Buffer)).toEqual({
      oid: 25,
      hasNull: true,
      elements: [null, 'ref.example', null],
    });
    expect(readArray(prepared.params[param('window_width')] as Buffer).elements).toEqual([null, 1440n, null]);
    // Microseconds since 2000-01-01.
    const at = BigInt(Date.parse('2026-11-26T12:00:00Z') - Date.parse('2000-01-01T00:00:00Z')) * 1000n;
    expect(readArray(prepared.params[param('at')] as Buffer)).toEqual({ oid: 1184, hasNull: false, elements: [at, at, at] });
    expect(readArray(prepared.params[param('session_start')] as Buffer).elements).toEqual([true, true, true]);
    expect(prepared.siteIds).toEqual([SITE, SITE, SITE]);
    expect(prepared.days).toEqual(['2026-11-26', '2026-11-26', '2026-11-26']);

    // Microseconds past the year 2285 leave JavaScript's safe integers: still exact.
    const far = new Date('2400-06-01T12:34:56.789Z');
    const later = await prepareChunk('pageviews', [row(5, { at: far })]);
    const farUs = BigInt(far.getTime() - Date.parse('2000-01-01T00:00:00Z')) * 1000n;
    expect(readArray(later.params[param('at')] as Buffer).elements).toEqual([farUs]);
    expect(readArray(later.params[1] as Buffer).elements).toEqual([
      Math.floor((far.getTime() - Date.parse('2000-01-01')) / 86_400_000),
    ]);
    expect(later.days).toEqual(['2400-06-01']);
    expect(prepared.lanes).toEqual(['human', 'human', 'bot']);
  });
});

/** PostgreSQL's binary array layout read back: one dimension, lower bound 1, elements by their OID. */
function readArray(b: Buffer) {
  expect(b.readInt32BE(0)).toBe(1);
  const hasNull = b.readInt32BE(4) === 1;
  const oid = b.readInt32BE(8);
  const n = b.readInt32BE(12);
  expect(b.readInt32BE(16)).toBe(1);
  const elements: unknown[] = [];
  let at = 20;
  for (let i = 0; i < n; i++) {
    const len = b.readInt32BE(at);
    at += 4;
    if (len < 0) {
      elements.push(null);
      continue;
    }
    const v = b.subarray(at, at + len);
    at += len;
    if (oid === 25) elements.push(v.toString('utf8'));
    else if (oid === 2950) {
      const h = v.toString('hex');
      elements.push(`${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);
    } else if (oid === 1082) elements.push(v.readInt32BE(0));
    else if (oid === 20 || oid === 1184) elements.push(v.readBigInt64BE(0));
    else if (oid === 16) elements.push(v[0] === 1);
    else elements.push(v.readDoubleBE(0));
  }
  expect(at).toBe(b.length);
  return { oid, hasNull, elements };
}
