// Issue 40 item 2: custom properties the site keeps (settings `keptProperties`) outlive the raw rows in the
// daily rollups (format 10). The same rows are stored for an old day of one site, rolled up and then dropped by
// raw retention, and for a recent day of another site read raw: the answers by prop:<key> must be equal.
import { eventRow, insertRows, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../src/analytics/range.ts';
import { dropRolledUpPartitions } from '../../../src/analytics/rollup/retention.ts';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { createToken } from '../../support/server.ts';
import { dayAgo, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

/** One day's traffic: pageviews and events with and without the kept key `plan`, and another key. */
async function insertDay(orm: Orm, siteId: string, day: string) {
  const at = (hour: number) => noonUtc(day, hour);
  await insertRows(orm, 'pageviews', [
    pv(siteId, at(9), { visitor: 'a', props: { plan: 'pro', 'Team size': 'small' } }),
    pv(siteId, at(10), { visitor: 'a', sessionStart: false, props: { plan: 'pro' } }),
    pv(siteId, at(11), { visitor: 'b', props: { plan: 'free' } }),
    pv(siteId, at(12), { visitor: 'c' }),
    pv(siteId, at(13), { visitor: 'd', props: { plan: 'pro' }, path: '/pricing' }),
  ]);
  await insertRows(orm, 'events', [
    eventRow(siteId, at(9), { visitor: 'a', props: { plan: 'pro' } }),
    eventRow(siteId, at(11), { visitor: 'b', props: { plan: 'free' } }),
    eventRow(siteId, at(11), { visitor: 'b', props: { plan: 'free' } }),
    eventRow(siteId, at(14), { visitor: 'e' }),
  ]);
}

/** A stranger's reports: 30 keys of random names and values each. */
async function insertStranger(orm: Orm, siteId: string, day: string) {
  const props = () => Object.fromEntries(Array.from({ length: 30 }, () => [`k${Math.random().toString(36).slice(2, 10)}`, 'x']));
  await insertRows(orm, 'pageviews', [pv(siteId, noonUtc(day, 15), { visitor: 's', props: props() })]);
  await insertRows(orm, 'events', [eventRow(siteId, noonUtc(day, 15), { visitor: 's', props: props() })]);
}

describe('kept custom properties in the daily rollups', () => {
  let f: StatsFixture;
  let orm: Orm;
  let kept: string;
  let reference: string;
  let writeAuth: string;
  // A day of its own, older than the raw window, whose raw partition this suite drops.
  const old = dayAgo('UTC', 137);
  const recent = dayAgo('UTC', 3);

  const q = <T>(sql: string, params: unknown[] = []) => orm.em.fork().getConnection().execute<T[]>(sql, params, 'all');
  const stats = (siteId: string, query: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, query);
  /** Rolls every pending day of the sites up, however many runs it takes. */
  const rollUp = async (siteIds: string[]) => {
    let rolled = 0;
    for (;;) {
      const run = await runRollups(orm, { siteIds, wait: true });
      expect(run.failed).toBe(0);
      rolled += run.rolled;
      if (!run.more) return rolled;
    }
  };

  beforeAll(async () => {
    f = await statsFixture();
    orm = f.t.deps.orm;
    kept = await f.site({ settings: { keptProperties: ['plan'] } });
    reference = await f.site();
    const { token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:write'] });
    writeAuth = `Bearer ${token}`;
    await insertDay(orm, kept, old);
    await insertStranger(orm, kept, old);
    await insertDay(orm, reference, recent);
    await insertStranger(orm, reference, recent);
    await rollUp([kept]);
    // Raw retention as it runs 93 days after the old day: only that day's partitions are old enough.
    const now = new Date(`${addDays(old, 93)}T12:00:00Z`);
    const dropped = await dropRolledUpPartitions(orm, { now, from: old, wait: true });
    expect(dropped.dropped).toContain(`pageviews_p${old.replaceAll('-', '')}`);
  });
  afterAll(() => f.close());

  it('answers a kept key over a day whose raw rows are gone with the figures the raw rows give', async () => {
    const [raw] = await q<{ n: number }>('select count(*)::int as n from pageviews where site_id = ?', [kept]);
    expect(raw?.n).toBe(0);
    for (const metrics of ['pageviews', 'sessions', 'events']) {
      const queries: Record<string, string>[] = [
        { by: 'prop:plan' },
        { 'where.prop:plan': 'pro' },
        { 'where.prop:plan': '(none)', by: 'day' },
      ];
      for (const query of queries) {
        const rolled = await stats(kept, { metrics, from: old, to: old, ...query }).expect(200);
        const fresh = await stats(reference, { metrics, from: recent, to: recent, ...query }).expect(200);
        expect(rolled.body.source, `${metrics} ${JSON.stringify(query)}`).toBe('rollups');
        expect(fresh.body.source).toBe('raw');
        expect(rolled.body.totals, `${metrics} ${JSON.stringify(query)}`).toEqual(fresh.body.totals);
        const rows = (body: { rows: { value: string | null; counts: unknown }[] }) =>
          query.by === 'day' ? body.rows.map((r) => r.counts) : body.rows;
        expect(rows(rolled.body), `${metrics} ${JSON.stringify(query)}`).toEqual(rows(fresh.body));
      }
    }
    // What the rows say, written out once: the same rows read raw would be no check of their own.
    const byPlan = await stats(kept, { metrics: 'pageviews', by: 'prop:plan', from: old, to: old }).expect(200);
    expect(
      byPlan.body.rows.map((r: { value: string | null; counts: Record<string, number> }) => [
        r.value,
        r.counts.pageviews,
        r.counts.visitors,
      ]),
    ).toEqual([
      ['pro', 3, 2],
      [null, 2, 2],
      ['free', 1, 1],
    ]);
    const events = await stats(kept, { metrics: 'events', by: 'prop:plan', from: old, to: old }).expect(200);
    expect(
      events.body.rows.map((r: { value: string | null; counts: Record<string, number> }) => [r.value, r.counts.events]),
    ).toEqual([
      ['free', 2],
      [null, 2],
      ['pro', 1],
    ]);
  });

  it('refuses a key the site does not keep over old days, naming keptProperties', async () => {
    const by = await stats(kept, { metrics: 'pageviews', by: 'prop:Team size', from: old, to: old }).expect(400);
    expect(by.body.field).toBe('by');
    expect(by.body.title).toContain('keptProperties');
    expect(by.body.title).toContain('"Team size"');
    const where = await stats(kept, { metrics: 'events', 'where.prop:Team size': 'small', from: old, to: recent }).expect(400);
    expect(where.body.field).toBe('where.prop:Team size');
    expect(where.body.title).toContain('keptProperties');
    // Within the raw window any key is answered.
    await stats(kept, { metrics: 'pageviews', by: 'prop:Team size', from: recent, to: recent }).expect(200);
  });

  it('keeps no rollup rows of the keys a stranger sends, and a kept key adds up to the day', async () => {
    const dimensions = await q<{ dimension: string }>(
      `select distinct dimension from daily_rollups where site_id = ? and day = ? and dimension like 'prop:%'`,
      [kept, old],
    );
    expect(dimensions.map((d) => d.dimension)).toEqual(['prop:plan']);
    const sums = await q<{ dimension: string; count: number }>(
      `select dimension, sum(count)::int as count from daily_rollups
        where site_id = ? and day = ? and metric_set = 'pageviews' and lane = 'human' and dimension in ('', 'prop:plan')
        group by dimension order by dimension`,
      [kept, old],
    );
    expect(sums).toEqual([
      { dimension: '', count: 6 },
      { dimension: 'prop:plan', count: 6 },
    ]);
  });

  it('a newly kept key: recent days are rolled up again with it, older days rolled up before are refused', async () => {
    const site = await f.site();
    await insertDay(orm, site, recent);
    // An old day rolled up (empty) before the key was kept.
    const before = dayAgo('UTC', 131);
    await q(`insert into rollup_days (site_id, day, version) values (?, ?, 10)`, [site, before]);
    expect(await rollUp([site])).toBeGreaterThan(0);
    const query = { metrics: 'pageviews', by: 'prop:plan', from: recent, to: recent };
    const unkept = await stats(site, query).expect(200);
    // Not kept when the day was rolled up: its rollups have no plan, so the raw rows answer.
    expect(unkept.body.source).toBe('raw');

    await f.t.request
      .patch(`/v1/sites/${site}/settings`)
      .set('Authorization', writeAuth)
      .send({ keptProperties: ['plan'] })
      .expect(200);
    expect(await rollUp([site])).toBeGreaterThan(0);
    const rerolled = await stats(site, query).expect(200);
    expect(rerolled.body.source).toBe('rollups');
    expect(rerolled.body.rows).toEqual(unkept.body.rows);
    expect(rerolled.body.totals).toEqual(unkept.body.totals);
    // Nothing more to do until the list changes again.
    expect(await rollUp([site])).toBe(0);

    const stale = await stats(site, { ...query, from: before }).expect(400);
    expect(stale.body.field).toBe('by');
    expect(stale.body.title).toContain(`Days from ${before} to ${before} were rolled up before the site kept the property plan`);
    expect(stale.body.title).toContain(`choose days from ${addDays(before, 1)} on`);
  });
});
