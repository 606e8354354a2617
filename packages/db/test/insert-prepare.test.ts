import { describe, expect, it } from 'vitest';
import { COLUMNS } from '../src/analytics/columns.ts';
import { prepareChunk } from '../src/analytics/insert.ts';
import type { PageviewRow } from '../src/analytics/rows.ts';

const SITE = '0190a8c4-1e4b-7c2d-9f00-000000000001';
const row = (n: number, extra: Partial<PageviewRow> = {}): PageviewRow => ({
  id: `0190a8c4-1e4b-7c2d-9f00-${String(n).padStart(12, '0')}`,
  siteId: SITE,
  at: new Date('2026-11-26T12:00:00Z'),
  pageviewId: `pv-${n}`,
  visitor: `v-${n}`,
  sessionStart: true,
  lane: n % 3 ? 'human' : 'bot',
  path: `/p/${n}`,
  device: 'desktop',
  ...extra,
});
/** The parameter index of a pageviews column (site_id, day and id come first). */
const param = (column: string) => 3 + COLUMNS.pageviews.findIndex(([c]) => c === column);

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

  it('encodes every column as one array literal, quoting text and keeping nulls, with the counts the tally needs', async () => {
    const prepared = await prepareChunk('pageviews', [
      row(1, { path: '/a"b\\c', referrerHost: null }),
      row(2, { path: 'NULL', referrerHost: 'ref.example' }),
      row(3, { path: '/x,y {z}' }),
    ]);
    expect(prepared.params[0]).toBe(`{"${SITE}","${SITE}","${SITE}"}`);
    expect(prepared.params[1]).toBe('{"2026-11-26","2026-11-26","2026-11-26"}');
    expect(prepared.params[param('path')]).toBe('{"/a\\"b\\\\c","NULL","/x,y {z}"}');
    expect(prepared.params[param('referrer_host')]).toBe('{NULL,"ref.example",NULL}');
    expect(prepared.siteIds).toEqual([SITE, SITE, SITE]);
    expect(prepared.days).toEqual(['2026-11-26', '2026-11-26', '2026-11-26']);
    expect(prepared.lanes).toEqual(['human', 'human', 'bot']);
    const one = await prepareChunk('pageviews', [row(4, { path: '/only' })]);
    expect(one.params[param('path')]).toBe('{"/only"}');
  });
});
