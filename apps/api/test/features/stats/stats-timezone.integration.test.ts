import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../src/analytics/range.ts';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { createToken } from '../../support/server.ts';
import { dayAgo, insertRows, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: days are calendar days in the site time zone', () => {
  let f: StatsFixture;
  beforeAll(async () => {
    f = await statsFixture();
  });
  afterAll(() => f.close());

  it('America/New_York: a pageview at 03:00 UTC counts on the previous local day', async () => {
    const siteId = await f.site({ timezone: 'America/New_York' });
    const utcDay = dayAgo('UTC', 10);
    const local = addDays(utcDay, -1);
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, new Date(`${utcDay}T03:00:00Z`), { path: '/late' }),
      pv(siteId, new Date(`${utcDay}T15:00:00Z`), { path: '/noon' }),
    ]);
    const prev = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'page', from: local, to: local })
      .expect(200);
    expect(prev.body.timezone).toBe('America/New_York');
    expect(prev.body.rows).toEqual([
      { value: '/late', counts: { pageviews: 1, sessions: 1, visitors: 1, scroll_depth: 0, time_on_page: 0 } },
    ]);
    const series = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'day', from: local, to: utcDay })
      .expect(200);
    expect(series.body.rows.map((r: { value: string; counts: { pageviews: number } }) => [r.value, r.counts.pageviews])).toEqual([
      [local, 1],
      [utcDay, 1],
    ]);
    const hours = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'hour', from: local, to: local })
      .expect(200);
    expect(hours.body.rows).toHaveLength(24);
    const lit = hours.body.rows.filter((r: { counts: { pageviews: number } }) => r.counts.pageviews > 0);
    expect(lit).toHaveLength(1);
    expect(lit[0].value).toMatch(new RegExp(`^${local}T2[23]:00$`));
  });

  it('Pacific/Kiritimati (+14): a pageview at 11:00 UTC counts on the next local day', async () => {
    const siteId = await f.site({ timezone: 'Pacific/Kiritimati' });
    const utcDay = dayAgo('UTC', 12);
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, new Date(`${utcDay}T11:00:00Z`))]);
    const next = addDays(utcDay, 1);
    const res = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', by: 'day', from: utcDay, to: next }).expect(200);
    expect(res.body.rows).toEqual([
      { value: utcDay, counts: { sessions: 0, visitors: 0 } },
      { value: next, counts: { sessions: 1, visitors: 1 } },
    ]);
  });

  it('a site whose time zone changes: its rolled-up days follow the new zone, read raw until counted again', async () => {
    const siteId = await f.site();
    const d = dayAgo('UTC', 10);
    const next = addDays(d, 1);
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, new Date(`${d}T02:00:00Z`), { visitor: 'tz-a', sessionStart: true }),
      pv(siteId, new Date(`${d}T20:00:00Z`), { visitor: 'tz-b', sessionStart: true }),
      pv(siteId, new Date(`${next}T03:00:00Z`), { visitor: 'tz-c', sessionStart: true }),
    ]);
    expect((await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true })).failed).toBe(0);
    // One day as a rollup recorded before rollups named their zone.
    await f.t.deps.orm.em.fork().execute('update rollup_days set timezone = null where site_id = ? and day = ?', [siteId, d]);
    const byDay = async () => {
      const res = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'day', from: d, to: next }).expect(200);
      return {
        source: res.body.source,
        days: res.body.rows.map((r: { value: string; counts: { pageviews: number } }) => [r.value, r.counts.pageviews]),
      };
    };
    expect(await byDay()).toEqual({
      source: 'rollups',
      days: [
        [d, 2],
        [next, 1],
      ],
    });

    // Tokyo is UTC+9: 20:00 UTC is the next morning there.
    const { token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:write'] });
    await f.t.request
      .patch(`/v1/sites/${siteId}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ timezone: 'Asia/Tokyo' })
      .expect(200);
    const tokyo = [
      [d, 1],
      [next, 2],
    ];
    expect(await byDay()).toEqual({ source: 'raw', days: tokyo });
    expect((await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true })).failed).toBe(0);
    expect(await byDay()).toEqual({ source: 'rollups', days: tokyo });

    // And back: counted again in UTC.
    await f.t.request.patch(`/v1/sites/${siteId}`).set('Authorization', `Bearer ${token}`).send({ timezone: 'UTC' }).expect(200);
    expect(await byDay()).toEqual({
      source: 'raw',
      days: [
        [d, 2],
        [next, 1],
      ],
    });
    expect((await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true })).failed).toBe(0);
    expect(await byDay()).toEqual({
      source: 'rollups',
      days: [
        [d, 2],
        [next, 1],
      ],
    });
  });
});
