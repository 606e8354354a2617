import { Site } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EdgeStandIn, startEdgeStandIn } from '../../support/edge-standin.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { siteOfNewOwner } from '../../support/sites.ts';

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
});
