// A site-day's rollup replaced: the stored rows end up exactly the new ones, and rows that stay as they
// were are not written again (a day counted again mostly gives the same rows; rewriting them all was most
// of the write and left as many dead rows to vacuum).

import { createOrm, type Orm, pgPoolOf } from '@us/db';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RollupRow } from '../../../src/analytics/rollup/rollup-format.ts';
import { type RunStatement, replaceSiteDayRollup, rollupChanges } from '../../../src/analytics/rollup/rollup-write.ts';
import { normalRows, storedRollupRows } from '../../support/rollup-day.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';

let orm: Orm;
let siteId: string;

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'));
  ({ siteId } = await siteInNewWorkspace(orm, 'Rollup write'));
});

afterAll(async () => {
  await orm?.close();
});

const row = (value: string, count: number | string, visitors: number | string, lane = 'human'): RollupRow => ({
  metric_set: 'pageviews',
  dimension: 'page',
  value,
  lane,
  count,
  visitors,
});

/** Replaces the day's rollup in a transaction of its own, as the rollup thread does. */
async function replace(day: string, rows: RollupRow[]) {
  const pool = (await pgPoolOf(orm)) as unknown as Pool;
  const client = await pool.connect();
  try {
    const run: RunStatement = async (sql, params) => (await client.query(sql, params)).rows;
    await client.query('begin');
    await replaceSiteDayRollup(run, siteId, day, rows, { until: null, timezone: 'UTC' });
    await client.query('commit');
  } finally {
    client.release();
  }
}

/** Each stored row's physical place: a row written again (updated, or deleted and inserted) has a new one. */
async function placesOf(day: string): Promise<Map<string, string>> {
  const rows = await orm.em
    .getConnection()
    .execute<{ value: string; lane: string; ctid: string }[]>(
      'select value, lane, ctid::text as ctid from daily_rollups where site_id = ? and day = ?',
      [siteId, day],
      'all',
    );
  return new Map(rows.map((r) => [`${r.value}|${r.lane}`, r.ctid]));
}

const pages = (n: number) => Array.from({ length: n }, (_, i) => row(`/p${i}`, 10 + i, 5 + i));

describe('replacing a site-day rollup', () => {
  it('leaves unchanged rows in place and writes only the changed, new and gone ones', async () => {
    const day = '2026-02-01';
    await replace(day, pages(10));
    const before = await placesOf(day);
    // Eight rows as they were (counts given as text now, as PostgreSQL answers them), one changed, one gone, one new.
    const next = [
      ...pages(10)
        .slice(0, 8)
        .map((r) => ({ ...r, count: String(r.count) })),
      row('/p8', 99, 40),
      row('/new', 1, 1),
    ];
    await replace(day, next);

    expect(await storedRollupRows(orm, { siteId, day, timezone: 'UTC' })).toEqual(normalRows(next));
    const after = await placesOf(day);
    for (let i = 0; i < 8; i++) expect(after.get(`/p${i}|human`), `/p${i}`).toBe(before.get(`/p${i}|human`));
    expect(after.get('/p8|human')).not.toBe(before.get('/p8|human'));
    expect(after.has('/p9|human')).toBe(false);
    expect(after.has('/new|human')).toBe(true);
  });

  it('a row of the same value in another lane is another row', async () => {
    const day = '2026-02-02';
    await replace(day, pages(6));
    const next = [...pages(6), row('/p0', 3, 2, 'bot')];
    await replace(day, next);
    expect(await storedRollupRows(orm, { siteId, day, timezone: 'UTC' })).toEqual(normalRows(next));
  });

  it('rewrites the day when most of it changed, with the same result', async () => {
    const day = '2026-02-03';
    await replace(day, pages(4));
    const next = [row('/p0', 1, 1), row('/x', 2, 2), row('/y', 3, 3)];
    await replace(day, next);
    expect(await storedRollupRows(orm, { siteId, day, timezone: 'UTC' })).toEqual(normalRows(next));
  });

  it('a day with no rows left keeps none, and its record', async () => {
    const day = '2026-02-04';
    await replace(day, pages(3));
    await replace(day, []);
    expect(await storedRollupRows(orm, { siteId, day, timezone: 'UTC' })).toEqual([]);
    const [record] = await orm.em
      .getConnection()
      .execute<{ n: string }[]>('select count(*) as n from rollup_days where site_id = ? and day = ?', [siteId, day], 'all');
    expect(Number(record?.n)).toBe(1);
  });

  it('rows whose parts would join to the same text stay apart', async () => {
    const day = '2026-02-05';
    const first = [row('b', 1, 1), { ...row('', 2, 2), dimension: 'pageb' }];
    await replace(day, first);
    const next = [...first, { ...row('b', 3, 3), dimension: 'pag', metric_set: 'pageviewse' }];
    await replace(day, next);
    expect(await storedRollupRows(orm, { siteId, day, timezone: 'UTC' })).toEqual(normalRows(next));
  });
});

describe('rollupChanges', () => {
  it('compares sums whether given as numbers or text, and names the rows no longer counted', () => {
    const stored = [row('/a', '5', '3'), row('/b', '2', '2'), row('/c', '1', '1')];
    const { changed, gone } = rollupChanges(stored, [row('/a', 5, 3), row('/b', 2, 3), row('/d', 1, 1)]);
    expect(changed.map((r) => r.value)).toEqual(['/b', '/d']);
    expect(gone.map((r) => r.value)).toEqual(['/c']);
  });
});
