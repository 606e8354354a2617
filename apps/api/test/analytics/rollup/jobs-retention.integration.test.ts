import { createOrm, dropPartitionsOfDays, insertRows, listPartitions, type Orm, pageviewRow, requestRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { maintainPartitions } from '../../../src/analytics/ingest/index.ts';
import { pendingSiteDays } from '../../../src/analytics/rollup/pending-days.ts';
import { applySiteRetention, dropRolledUpPartitions } from '../../../src/analytics/rollup/retention.ts';
import { rollupSiteDay, runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';

// Days long gone (2002, 2004), apart from the other suites' days, on the suite's shared database.
let orm: Orm;
beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 4 });
});
afterAll(async () => {
  await orm?.close();
});

const q = <T>(sql: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(sql, params, 'all');

async function newSite(timezone = 'UTC', retentionDays: number | null = null): Promise<string> {
  return (await siteInNewWorkspace(orm, 'Retention', { timezone, retentionDays })).siteId;
}

const pv = (siteId: string, at: string) => pageviewRow(siteId, new Date(at), { visitor: 'v' });
const req = (siteId: string, at: string) => requestRow(siteId, new Date(at), { lane: 'bot', kind: 'bot' });

const count = async (table: string, siteId: string) =>
  (await q<{ n: number }>(`select count(*)::int as n from ${table} where site_id = ?`, [siteId]))[0]?.n;

describe('raw partition retention', () => {
  it('drops partitions older than 92 days only once every site has rolled their days up', async () => {
    const a = await newSite();
    const b = await newSite('Europe/Berlin');
    await insertRows(orm, 'pageviews', [
      pv(a, '2002-01-10T12:00:00Z'),
      pv(a, '2002-01-11T12:00:00Z'),
      pv(b, '2002-01-11T23:30:00Z'),
    ]);
    await insertRows(orm, 'requests', [req(b, '2002-01-12T08:00:00Z')]);
    // A partition within the 92 days stays regardless.
    await insertRows(orm, 'pageviews', [pv(a, '2002-03-20T12:00:00Z')]);
    const now = new Date('2002-04-20T12:00:00Z'); // 92 days before: 2002-01-18
    const opts = { now, from: '2002-01-01', wait: true };
    const has = async (day: string) => (await listPartitions(orm, 'pageviews')).includes(`pageviews_p${day}`);

    // Nothing rolled up: the oldest day holds every later one.
    const none = await dropRolledUpPartitions(orm, opts);
    expect(none).toMatchObject({ ran: true, dropped: [], blockedAt: '2002-01-10' });
    expect(await has('20020110')).toBe(true);

    // Only site a rolled up: 01-10 goes; 01-11 holds b's row (its Berlin day 01-12 is not rolled up).
    await runRollups(orm, { now, siteIds: [a], wait: true });
    const partial = await dropRolledUpPartitions(orm, opts);
    expect(partial.dropped).toEqual(['events', 'page_leaves', 'pageviews', 'requests'].map((t) => `${t}_p20020110`).sort());
    expect(partial.blockedAt).toBe('2002-01-11');
    expect(await has('20020110')).toBe(false);
    expect(await has('20020111')).toBe(true);

    // Everything rolled up: every old partition goes, the recent one stays, the rollups stay.
    await runRollups(orm, { now, siteIds: [b], wait: true });
    // Results stored for those days (nothing reads them past the raw window; they grew for as long as the site was
    // kept) go with them; a recent day's stay.
    for (const day of ['2002-01-10', '2002-01-11', '2002-03-20']) {
      await q(
        `insert into result_days (site_id, kind, spec, day, rows, seen, computed_at) values (?, 'journeys', 'page', ?::date, '[]', 0, now())`,
        [a, day],
      );
      await q(`insert into day_arrivals (site_id, day, rows) values (?, ?::date, 1) on conflict do nothing`, [a, day]);
    }
    const all = await dropRolledUpPartitions(orm, opts);
    expect(all.blockedAt).toBeNull();
    expect(all.dropped).toContain('pageviews_p20020111');
    expect(all.dropped).toContain('requests_p20020112');
    expect(await has('20020111')).toBe(false);
    expect(await has('20020320')).toBe(true);
    expect(await count('pageviews', b)).toBe(0);
    const rolled = await q<{ day: string; count: number }>(
      `select to_char(day, 'YYYY-MM-DD') as day, count::int as count from daily_rollups
        where site_id = ? and metric_set = 'pageviews' and dimension = '' and lane = 'human' order by day`,
      [b],
    );
    expect(rolled).toEqual([{ day: '2002-01-12', count: 1 }]);
    const stored = await q<{ day: string }>(
      `select to_char(day, 'YYYY-MM-DD') as day from result_days where site_id = ? order by day`,
      [a],
    );
    expect(stored).toEqual([{ day: '2002-03-20' }]);
    expect(await q(`select 1 from day_arrivals where site_id = ? and day < '2002-03-01'`, [a])).toEqual([]);
  });

  // The fault: any record held the day, one of a quarter-hour step too; a day whose closing rollup kept failing lost
  // its rows after its last step (no raw tail to read them from) before the week a failing day is held.
  it('a day rolled up only to a quarter-hour step holds its partition until it is closed', async () => {
    const s = await newSite();
    await insertRows(orm, 'pageviews', [pv(s, '2002-06-10T05:00:00Z'), pv(s, '2002-06-10T12:00:00Z')]);
    await rollupSiteDay(orm, { siteId: s, timezone: 'UTC', day: '2002-06-10' }, '2002-06-10T06:00:00Z');
    const opts = { now: new Date('2002-09-20T00:00:00Z'), from: '2002-06-10', wait: true };
    const held = await dropRolledUpPartitions(orm, opts);
    expect(held).toMatchObject({ dropped: [], blockedAt: '2002-06-10' });
    await rollupSiteDay(orm, { siteId: s, timezone: 'UTC', day: '2002-06-10' });
    expect((await dropRolledUpPartitions(orm, opts)).dropped).toContain('pageviews_p20020610');
  });

  it('maintenance drops rolled-up partitions only when retainRawDays is set', async () => {
    const s = await newSite();
    await insertRows(orm, 'pageviews', [pv(s, '2002-02-01T12:00:00Z')]);
    await runRollups(orm, { now: new Date('2002-02-10T00:00:00Z'), siteIds: [s], wait: true });
    const has = async () => (await listPartitions(orm, 'pageviews')).includes('pageviews_p20020201');
    // Off (the default): nothing dropped. The harness's servers run like this.
    await maintainPartitions(orm, { now: new Date('2002-05-20T00:00:00Z'), daysAhead: 0 });
    expect(await has()).toBe(true);
    const run = await dropRolledUpPartitions(orm, { now: new Date('2002-05-20T00:00:00Z'), from: '2002-02-01', wait: true });
    expect(run.dropped).toContain('pageviews_p20020201');
    expect(await has()).toBe(false);
  });
});

describe('rolling up again after retention', () => {
  it('leaves a rolled-up day whose first hours were in a dropped partition as it is', async () => {
    // The oldest days of the suite's database (2000, the first year a row may have). Berlin in January is
    // UTC+1, so local 2000-01-15 is [01-14 23:00Z, 01-15 23:00Z): its first hour is in the partition of 01-14.
    const s = await newSite('Europe/Berlin');
    await insertRows(orm, 'pageviews', [pv(s, '2000-01-14T23:30:00Z'), pv(s, '2000-01-15T12:00:00Z')]);
    const now = new Date('2000-04-20T12:00:00Z');
    await runRollups(orm, { now, siteIds: [s], wait: true });
    // Retention 92 days after 01-14 (2000 is a leap year) drops that day only.
    const run = await dropRolledUpPartitions(orm, { now: new Date('2000-04-16T12:00:00Z'), from: '2000-01-14', wait: true });
    expect(run.dropped).toContain('pageviews_p20000114');
    expect(run.dropped).not.toContain('pageviews_p20000115');
    // An older format makes a day a candidate again: not 01-15, whose first hour is gone (rolled up again, it
    // would lose it), but 01-16, whose rows are all still there.
    await q(`update rollup_days set version = 1 where site_id = ? and day in ('2000-01-15', '2000-01-16')`, [s]);
    const pending = (await pendingSiteDays(orm, { now, siteIds: [s] }, 1000)).map((d) => d.day);
    expect(pending).toContain('2000-01-16');
    expect(pending).not.toContain('2000-01-15');
    const [day] = await q<{ count: number }>(
      `select count::int as count from daily_rollups
        where site_id = ? and day = '2000-01-15' and metric_set = 'pageviews' and dimension = '' and lane = 'human'`,
      [s],
    );
    expect(day?.count).toBe(2);
    // The oldest partitions must not outlive the test: they would be every other suite's oldest.
    await dropPartitionsOfDays(orm, ['2000-01-15', '2000-01-16']);
  });
});

describe('per-site retention', () => {
  it("deletes only that site's raw rows and rollups older than its retention days", async () => {
    const kept = await newSite('UTC', null);
    const short = await newSite('Asia/Tokyo', 30);
    const rows = (s: string) => [pv(s, '2004-01-10T12:00:00Z'), pv(s, '2004-02-20T12:00:00Z'), pv(s, '2004-02-29T12:00:00Z')];
    await insertRows(orm, 'pageviews', [...rows(kept), ...rows(short)]);
    await insertRows(orm, 'requests', [req(kept, '2004-01-10T12:00:00Z'), req(short, '2004-01-10T12:00:00Z')]);
    const now = new Date('2004-03-01T12:00:00Z'); // Tokyo: 2004-03-01 21:00; kept from local 2004-01-31
    await runRollups(orm, { now, siteIds: [kept, short], wait: true });
    const rollupDays = async (s: string) =>
      (
        await q<{ day: string }>(
          `select distinct to_char(day, 'YYYY-MM-DD') as day from daily_rollups where site_id = ? order by 1`,
          [s],
        )
      ).map((r) => r.day);
    expect(await rollupDays(short)).toEqual(['2004-01-10', '2004-02-20', '2004-02-29']);

    const run = await applySiteRetention(orm, { now, siteIds: [kept, short], wait: true });
    expect(run).toMatchObject({ ran: true, sites: 1, rawRows: 2 });
    expect(await count('pageviews', short)).toBe(2);
    expect(await count('requests', short)).toBe(0);
    expect(await rollupDays(short)).toEqual(['2004-02-20', '2004-02-29']);
    // The site without a retention keeps everything.
    expect(await count('pageviews', kept)).toBe(3);
    expect(await count('requests', kept)).toBe(1);
    expect(await rollupDays(kept)).toEqual(['2004-01-10', '2004-02-20', '2004-02-29']);
    // Running again deletes nothing more; the emptied days are not rolled up again.
    expect(await applySiteRetention(orm, { now, siteIds: [short], wait: true })).toMatchObject({ rawRows: 0, rollupRows: 0 });
    expect((await runRollups(orm, { now, siteIds: [short], wait: true })).rolled).toBe(0);
  });

  // A retention set on a site of many busy days deleted them all in one transaction (tens of millions of rows,
  // undone whole by a stop). Now a few days per transaction, oldest first: the same rows go.
  it('deletes a few days per transaction, oldest first, with the same outcome', async () => {
    const s = await newSite('UTC', 3);
    const days = Array.from({ length: 12 }, (_, i) => `2004-05-${String(i + 1).padStart(2, '0')}`);
    await insertRows(
      orm,
      'pageviews',
      days.map((d) => pv(s, `${d}T12:00:00Z`)),
    );
    await insertRows(
      orm,
      'requests',
      days.map((d) => req(s, `${d}T06:00:00Z`)),
    );
    const now = new Date('2004-05-12T18:00:00Z');
    await runRollups(orm, { now, siteIds: [s], wait: true });
    const run = await applySiteRetention(orm, { now, siteIds: [s], wait: true, chunkDays: 2 });
    // Kept: today (05-12) and the 3 days before.
    expect(run).toMatchObject({ sites: 1, rawRows: 16 });
    const left = async (table: string) =>
      (
        await q<{ day: string }>(`select distinct to_char(day, 'YYYY-MM-DD') as day from ${table} where site_id = ? order by 1`, [
          s,
        ])
      ).map((r) => r.day);
    expect(await left('pageviews')).toEqual(days.slice(8));
    expect(await left('requests')).toEqual(days.slice(8));
    expect(await left('daily_rollups')).toEqual(days.slice(8, 11));
    // The arrivals (and stored results) of the UTC day holding the first instant kept go too: in another zone it
    // would hold deleted rows.
    expect(await left('day_arrivals')).toEqual(days.slice(9));
    expect(await applySiteRetention(orm, { now, siteIds: [s], wait: true, chunkDays: 2 })).toMatchObject({
      rawRows: 0,
      rollupRows: 0,
    });
  });

  it('keeps today and the retention days before it on local days', async () => {
    const s = await newSite('UTC', 1);
    await insertRows(orm, 'pageviews', [
      pv(s, '2004-04-08T23:59:59Z'),
      pv(s, '2004-04-09T00:00:00Z'),
      pv(s, '2004-04-10T08:00:00Z'),
    ]);
    await applySiteRetention(orm, { now: new Date('2004-04-10T09:00:00Z'), siteIds: [s], wait: true });
    const left = await q<{ at: Date }>(`select at from pageviews where site_id = ? order by at`, [s]);
    expect(left.map((r) => new Date(r.at).toISOString())).toEqual(['2004-04-09T00:00:00.000Z', '2004-04-10T08:00:00.000Z']);
  });
});
