import { insertRows, pageviewRow, requestRow, SITE_DATA_TABLES, Site } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeletedSites } from '../../../src/analytics/rollup/site-purge.ts';
import { type EdgeStandIn, startEdgeStandIn } from '../../support/edge-standin.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { siteOfNewOwner } from '../../support/sites.ts';
import { insertRollups } from '../../support/stats-fixture.ts';

/** Deleting a site must not leave its proxy hostnames registered at the edge platform. */
describe('site deletion and the edge platform', () => {
  let t: TestServer;
  let edge: EdgeStandIn;
  beforeAll(async () => {
    edge = await startEdgeStandIn();
    t = await startTestServer({ env: { ...edge.env } });
  });
  afterAll(async () => {
    await t.close();
    await edge.close();
  });

  it('releases every proxy hostname at the edge, then deletes the site and its keys', async () => {
    const { auth, siteId } = await siteOfNewOwner(t, { name: 'Shop' });
    const host = `shop-${Date.now()}.example.com`;
    await t.request
      .post(`/v1/sites/${siteId}/hostnames`)
      .set('Authorization', auth)
      .send({ hostname: host, proxy: true, origin: 'https://origin.example.com' })
      .expect(201);
    expect(edge.byHostname(host)).toHaveLength(1);

    await t.request.delete(`/v1/sites/${siteId}`).set('Authorization', auth).expect(204);
    expect(edge.byHostname(host)).toHaveLength(0);
    expect(await t.deps.orm.em.fork().findOne(Site, { id: siteId })).toBeNull();
    await t.request.get(`/v1/sites/${siteId}`).set('Authorization', auth).expect(404);
  });

  it('purges every analytics row of the deleted site, and rows of it that land later, then forgets it after a week', async () => {
    const { auth, siteId } = await siteOfNewOwner(t, { name: 'Gone' });
    const orm = t.deps.orm;
    const now = new Date();
    await insertRows(orm, 'pageviews', [
      pageviewRow(siteId, now),
      pageviewRow(siteId, new Date(now.getTime() - 20 * 86_400_000)),
    ]);
    await insertRows(orm, 'requests', [requestRow(siteId, now, { lane: 'bot', kind: 'bot' })]);
    await insertRollups(t, siteId, [{ day: '2024-01-01', metricSet: 'pageviews', count: 5, visitors: 3 }]);
    const sql = (q: string, params: unknown[] = []) => orm.em.fork().execute(q, params);
    await sql(`insert into rollup_days (site_id, day) values (?, '2024-01-01')`, [siteId]);
    await sql(
      `insert into imported_rollups (site_id, day, metric_set, dimension, value, lane, count, visitors, import_id)
       values (?, '2023-06-01', 'pageviews', '', '', 'human', 9, 4, gen_random_uuid())`,
      [siteId],
    );
    const rowsLeft = async () => {
      const left: Record<string, number> = {};
      for (const table of SITE_DATA_TABLES) {
        const [row] = await orm.em
          .fork()
          .execute<{ n: number }[]>(`select count(*)::int as n from ${table} where site_id = ?`, [siteId]);
        if (row?.n) left[table] = row.n;
      }
      return left;
    };
    expect(Object.keys(await rowsLeft()).sort()).toEqual(
      ['daily_rollups', 'day_arrivals', 'imported_rollups', 'pageviews', 'requests', 'rollup_days'].sort(),
    );

    await t.request.delete(`/v1/sites/${siteId}`).set('Authorization', auth).expect(204);
    const purge = (at = new Date()) => purgeDeletedSites(orm, { siteIds: [siteId], wait: true, now: at, chunkDays: 3 });
    expect(await purge()).toMatchObject({ ran: true, sites: 1 });
    expect(await rowsLeft()).toEqual({});

    // A row of it still on its way (a write buffer, a spill file) lands after: the next run purges it too.
    await insertRows(orm, 'pageviews', [pageviewRow(siteId, now)]);
    expect((await purge()).rows).toBeGreaterThan(0);
    expect(await rowsLeft()).toEqual({});
    const tombstone = () => sql('select 1 from deleted_sites where site_id = ?', [siteId]);
    expect(await tombstone()).toHaveLength(1);
    await purge(new Date(now.getTime() + 8 * 86_400_000));
    expect(await tombstone()).toHaveLength(0);
  });
});
