// Incremental rollups (analytics/rollup/rollup-delta.ts): a site-day rolled up to an hour, then brought up to date
// after rows arrived late, must hold exactly the rows the SQL rollup (support/rollup-sql.ts) gives for
// the whole range, as if it had been counted from scratch; and only the visitors with unseen rows are
// recounted. Late rows of every kind: a pageview hours back for a known visitor, a leave report for an
// old pageview, a new visitor's pageview carrying an old pageview's id, a late event and request, a
// row inserted by a transaction still open while the rollup ran.
import { createOrm, eventRow, insertRows, type Orm, type PageviewRow, pageLeaveRow, pgPoolOf, requestRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SiteDay } from '../../../src/analytics/rollup/pending-days.ts';
import { rollupSiteDay, siteDaySource } from '../../../src/analytics/rollup/rollup.ts';
import { rollupInThread } from '../../../src/analytics/rollup/rollup-thread.ts';
import { generatedSiteDay, normalRows, pageview, storedRollupRows } from '../../support/rollup-day.ts';
import { sqlRollupRows } from '../../support/rollup-sql.ts';

const TZ = 'Europe/Berlin';
const MIN = 60_000;
const HOUR = 60 * MIN;
let orm: Orm;
let sd: SiteDay;
/** The local midnight starting the day. */
let lo: number;

const hour = (h: number) => new Date(lo + h * HOUR);
const until = (h: number) => hour(h).toISOString();

const stored = () => storedRollupRows(orm, sd);

/** What the SQL rollup counts for the day up to `h` (or the whole day). */
async function expected(h?: number) {
  return normalRows(await sqlRollupRows(orm, await siteDaySource(orm, sd, h === undefined ? undefined : until(h))));
}

const pv = (visitor: string, h: number, extra: Partial<PageviewRow> = {}) =>
  pageview(sd.siteId, visitor, hour(h), { path: '/late', ...extra });

/** Human pageviews stored between two hours of the day, with their visitor and id. */
async function someOf(from: number, to: number, n: number) {
  return orm.em.getConnection().execute<{ visitor: string; pageview_id: string; path: string }[]>(
    `select visitor, pageview_id, path from pageviews
        where site_id = ? and at >= ? and at < ? and lane = 'human' order by at limit ?`,
    [sd.siteId, hour(from), hour(to), n],
    'all',
  );
}

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 6 });
  sd = await generatedSiteDay(orm, 'Deltas', TZ, 4000);
  lo = Date.parse((await siteDaySource(orm, sd)).whereParams[3] as string);
}, 120_000);

afterAll(async () => {
  await orm?.close();
});

describe('incremental rollups', () => {
  it('count the whole day first, then only the visitors with rows the last rollup did not see', async () => {
    const first = await rollupSiteDay(orm, sd, until(16));
    expect(first?.recounted).toBeNull();
    expect(await stored()).toEqual(await expected(16));

    const [x, y, w] = await someOf(1, 15, 3);
    if (!x || !y || !w) throw new Error('no generated pageviews before 15:00');
    await insertRows(orm, 'pageviews', [
      // Hours back, for a visitor already counted: their visits, exits and single-page count change.
      pv(x.visitor, 3, { path: '/late-for-x', sessionStart: true, referrerHost: 'www.google.com' }),
      // A new visitor's pageview carrying an old pageview's id (its leave report counts with both).
      pv('delta-new', 5, { pageviewId: w.pageview_id, sessionStart: true, country: 'FR' }),
      pv('delta-bot', 4, { lane: 'bot', botName: 'Googlebot', botCategory: 'search', sessionStart: true }),
      // After the last rollup's hour: unseen too.
      pv('delta-after', 16.5, { sessionStart: true, path: '/after' }),
    ]);
    await insertRows(orm, 'page_leaves', [
      pageLeaveRow(sd.siteId, hour(6), { pageviewId: y.pageview_id, scrollDepth: 70, timeOnPageMs: 4200 }),
      pageLeaveRow(sd.siteId, hour(6), { pageviewId: w.pageview_id, scrollDepth: 30, timeOnPageMs: 900, interacted: false }),
    ]);
    await insertRows(orm, 'events', [
      eventRow(sd.siteId, hour(2), { visitor: 'delta-event', path: '/shop', name: 'buy', value: 12.5 }),
    ]);
    await insertRows(orm, 'requests', [
      requestRow(sd.siteId, hour(1), { path: '/late-api', durationMs: 2, lane: 'bot', kind: 'bot', decision: null }),
    ]);

    const second = await rollupSiteDay(orm, sd, until(17));
    const [day] = await orm.em
      .getConnection()
      .execute<{ n: string }[]>(
        `select count(distinct visitor)::text as n from pageviews where site_id = ? and at >= ? and at < ?`,
        [sd.siteId, hour(0), hour(17)],
        'all',
      );
    // x, y and w (and whoever shares their pageview ids), the three new ones, the event's, and everyone with a row 16:00–17:00.
    expect(second?.recounted).toBeGreaterThanOrEqual(7);
    expect(second?.recounted).toBeLessThan(Number(day?.n) / 3);
    const rows = await stored();
    expect(rows).toEqual(await expected(17));
    expect(rows).toContain('pageviews|page|/late-for-x|human = 1/1');
    expect(rows).toContain('requests|path|/late-api|bot = 1/0');
  });

  it('leave a row of a transaction still open to the next rollup, which counts it once it is committed', async () => {
    const pool = await pgPoolOf(orm);
    const held = await pool.connect();
    try {
      await held.query('begin');
      await held.query(
        `insert into pageviews (site_id, day, id, at, pageview_id, visitor, session_start, lane, path, device)
         values ('${sd.siteId}', ('${hour(6).toISOString()}'::timestamptz at time zone 'UTC')::date, gen_random_uuid(),
                 '${hour(6).toISOString()}', 'held-pv', 'delta-held', true, 'human', '/held', 'desktop')`,
      );
      // Traffic goes on meanwhile: a later transaction commits, so the rollup's snapshot lists the held
      // one as running below its xmax (not merely at it).
      await insertRows(orm, 'pageviews', [pv('delta-meanwhile', 19.5, { sessionStart: true })]);
      const meanwhile = await rollupSiteDay(orm, sd, until(20));
      expect(meanwhile?.recounted).not.toBeNull();
      expect(await stored()).toEqual(await expected(20));
      expect(await stored()).not.toContain('pageviews|page|/held|human = 1/1');
      await held.query('commit');
    } finally {
      held.release();
    }
    // The day's end: the held row, and everything after 20:00.
    const closed = await rollupSiteDay(orm, sd);
    expect(closed?.recounted).not.toBeNull();
    const rows = await stored();
    expect(rows).toEqual(await expected());
    expect(rows).toContain('pageviews|page|/held|human = 1/1');
    const [day] = await orm.em
      .getConnection()
      .execute<{ rolled_until: string | null }[]>(
        'select rolled_until from rollup_days where site_id = ? and day = ?',
        [sd.siteId, sd.day],
        'all',
      );
    expect(day?.rolled_until).toBeNull();
  });

  it('count the whole day again when most of its visitors have unseen rows, or when it was complete', async () => {
    // A complete day is never a starting point: counted whole (rolled back to 01:00, as only benches and tests do).
    expect((await rollupSiteDay(orm, sd, until(1), { rewind: true }))?.recounted).toBeNull();
    expect(await stored()).toEqual(await expected(1));
    // From 01:00 to the day's end almost every visitor has unseen rows: cheaper to count the day once.
    expect((await rollupSiteDay(orm, sd))?.recounted).toBeNull();
    expect(await stored()).toEqual(await expected());
  });

  it('refuse to add to a rollup another run replaced meanwhile, and write nothing', async () => {
    // The day was closed by the test before: rolled back to 22:00.
    await rollupSiteDay(orm, sd, until(22), { rewind: true });
    const [stale] = await orm.em
      .getConnection()
      .execute<{ until: string; snapshot: string; server: string; omitted: string[] }[]>(
        `select to_char(rolled_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as until, snapshot::text as snapshot,
              snapshot_server as server, omitted_pairs as omitted
           from rollup_days where site_id = ? and day = ?`,
        [sd.siteId, sd.day],
        'all',
      );
    await insertRows(orm, 'pageviews', [pv('delta-race', 22.5, { sessionStart: true, path: '/race' })]);
    expect((await rollupSiteDay(orm, sd, until(23)))?.recounted).not.toBeNull();
    const rows = await stored();
    const src = await siteDaySource(orm, sd);
    await expect(
      rollupInThread(orm, {
        src,
        wholeDay: src,
        atOnce: 2,
        siteId: sd.siteId,
        day: sd.day,
        timezone: sd.timezone,
        until: null,
        last: stale as { until: string; snapshot: string; server: string; omitted: string[] },
        firstUtc: sd.day,
      }),
    ).rejects.toThrow(/another run/);
    expect(await stored()).toEqual(rows);
    expect(rows).toEqual(await expected(23));
  });
});
