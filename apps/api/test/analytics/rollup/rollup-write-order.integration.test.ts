// Two rollups of one site-day at once (the closing rollup and today's quarter-hour one around midnight,
// or two nodes): the incremental one locks the day's `rollup_days` row, then adds to its rollup rows; a
// whole-day replace meanwhile must wait for it on that same row. It used to delete the day's rows first
// and then wait for the record: each held what the other needed, and PostgreSQL threw one away.

import { createOrm, type Orm, pgPoolOf } from '@us/db';
import type { Pool, PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { RollupRow } from '../../../src/analytics/rollup/rollup-format.ts';
import { addToSiteDayRollup, type RunStatement, replaceSiteDayRollup } from '../../../src/analytics/rollup/rollup-write.ts';
import { blockingPids } from '../../support/lock-waits.ts';
import { normalRows, storedRollupRows } from '../../support/rollup-day.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';

const DAY = '2026-01-15';
/** A complete day's record, in the test site's zone. */
const WHOLE = { until: null, timezone: 'UTC' };
let orm: Orm;
let siteId: string;

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'));
  ({ siteId } = await siteInNewWorkspace(orm, 'Rollup write order'));
});

afterAll(async () => {
  await orm?.close();
});

const row = (value: string, count: number, visitors: number): RollupRow => ({
  metric_set: 'pageviews',
  dimension: 'page',
  value,
  lane: 'human',
  count,
  visitors,
});
const runOn =
  (client: PoolClient): RunStatement =>
  async (sql, params) =>
    (await client.query(sql, params)).rows;

describe('two rollups of one site-day at once', () => {
  it('wait for each other on the day record: both commit, the later one is what stays', async () => {
    const pool = (await pgPoolOf(orm)) as unknown as Pool; // the real pg pool (its type here is structural)
    const [whole, incremental] = [await pool.connect(), await pool.connect()];
    const pidOf = async (client: PoolClient) =>
      (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    const [wholePid, incrementalPid] = [await pidOf(whole), await pidOf(incremental)];
    try {
      await whole.query('begin');
      await replaceSiteDayRollup(runOn(whole), siteId, DAY, [row('/a', 5, 3), row('/b', 2, 2)], WHOLE);
      await whole.query('commit');
      const { rows } = await incremental.query<{ s: string }>('select pg_current_snapshot()::text as s');
      const snapshot = rows[0]?.s as string;

      // The incremental rollup's transaction: the day's record locked, as the rollup thread does.
      await incremental.query('begin');
      await incremental.query('select 1 from rollup_days where site_id = $1::uuid and day = $2::date for update', [siteId, DAY]);
      // A whole-day rollup starts meanwhile.
      await whole.query('begin');
      const replaced = replaceSiteDayRollup(runOn(whole), siteId, DAY, [row('/a', 7, 4), row('/c', 1, 1)], WHOLE).then(() =>
        whole.query('commit'),
      );
      replaced.catch(() => {}); // awaited below; a deadlock may throw it before then
      // Once the whole-day rollup waits for the incremental one's lock, the incremental one goes on.
      await vi.waitFor(
        async () => {
          expect(await blockingPids(orm, wholePid as number)).toContain(incrementalPid);
        },
        { timeout: 10_000, interval: 20 },
      );
      // The incremental one adds its deltas to the rows the whole-day one would have locked already.
      await addToSiteDayRollup(runOn(incremental), siteId, DAY, [row('/a', 1, 1)], {
        ...WHOLE,
        snapshot: { snapshot, server: '' },
      });
      await incremental.query('commit');
      await replaced;

      expect(await storedRollupRows(orm, { siteId, day: DAY, timezone: 'UTC' })).toEqual(
        normalRows([row('/a', 7, 4), row('/c', 1, 1)]),
      );
    } finally {
      whole.release(true);
      incremental.release(true);
    }
  });
});
