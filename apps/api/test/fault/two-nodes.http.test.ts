// Two API nodes of one deployment, as infra/compose.yaml runs them: one PostgreSQL, one redis-server (hot
// state and the write buffer under the same keys), and again on a Redis Cluster (three masters, a replica
// each). Requests alternate between the nodes, and what a user relies on must hold as if there were one:
// rate limits count across nodes, an idempotency key replays on the other node, a revoked token is refused
// at once everywhere, and every page report answered 202 by either node is stored exactly once though both
// nodes' flushers drain the buffer.
import { randomBytes, randomUUID } from 'node:crypto';
import { Site } from '@us/db';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectProblem } from '../support/auth-helpers.ts';
import { type CollectSite, collectSite, postReport } from '../support/collect.ts';
import { createToken, createUser, describeEachShared, signIn, startTestServer, type TestServer } from '../support/server.ts';

describeEachShared()('two API nodes, one PostgreSQL, one Redis (%s)', (kind) => {
  let a: TestServer;
  let b: TestServer;
  let site: CollectSite;
  beforeAll(async () => {
    const deployment = {
      hot: kind,
      hotPrefix: `us:test-${randomUUID()}:`,
      ingestKey: `ingest-${randomUUID()}`,
      appSecret: randomBytes(48).toString('base64url'),
      env: { TRUST_PROXY: 'true' },
    };
    a = await startTestServer(deployment);
    b = await startTestServer(deployment);
    site = await collectSite(a, 'two-nodes.example');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const nodes = () => [a, b];

  it('both nodes are ready and say which hot state they share', async () => {
    for (const t of nodes()) {
      const ready = await t.request.get('/readyz').expect(200);
      expect(ready.body).toEqual({ status: 'ready', database: 'ok', hotState: `ok (${kind})` });
    }
  });

  it('a rate limit counts requests on both nodes: 60 secret lookups a minute from one address, then 429', async () => {
    const ip = '203.0.113.61';
    // Sent all at once, alternating nodes: the budget counts before it checks, atomically in Redis.
    const statuses = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        (i % 2 ? b : a).request
          .post('/collect/requests')
          .set('x-svc-proxy', `sk_live_${randomBytes(16).toString('hex')}`)
          .set('X-Forwarded-For', ip)
          .send({ k: site.publicKey, records: [] })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    // Either node now refuses that address, and serves another.
    for (const t of nodes()) {
      const r = await t.request.post('/collect/requests').set('x-svc-proxy', 'sk_live_x').set('X-Forwarded-For', ip).send({});
      expect(r.status).toBe(429);
    }
    const other = await b.request
      .post('/collect/requests')
      .set('x-svc-proxy', site.secret)
      .set('X-Forwarded-For', '198.51.100.62')
      .send({ k: site.publicKey, records: [{ at: Date.now(), method: 'GET', path: '/', status: 200, ms: 1 }] });
    expect(other.status).toBe(202);
  });

  it('an idempotency key used on one node replays on the other: one site is created', async () => {
    const o = await createUser(a.deps);
    const cookieA = await signIn(a, o.email);
    const key = `two-nodes-${randomUUID()}`;
    const create = (t: TestServer) =>
      t.request.post('/v1/sites').set('Cookie', cookieA).set('X-Workspace', o.workspace.id).set('Idempotency-Key', key).send({
        name: 'Across nodes',
      });
    const first = await create(a).expect(201);
    const again = await create(b).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.site.id).toBe(first.body.site.id);
    expect(await a.deps.orm.em.fork().count(Site, { workspace: o.workspace.id, name: 'Across nodes' })).toBe(1);
  });

  it('a token revoked through one node is refused at once by the other, which had it cached', async () => {
    const o = await createUser(a.deps);
    const { id, token } = await createToken(a.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
    const me = (t: TestServer) => t.request.get('/v1/me').set('Authorization', `Bearer ${token}`);
    for (const t of [a, b, a, b]) expect((await me(t)).status).toBe(200);
    const owner = await signIn(b, o.email);
    await b.request.delete(`/v1/tokens/${id}`).set('Cookie', owner).set('X-Workspace', o.workspace.id).expect(204);
    expectProblem(await me(a), 401);
    expectProblem(await me(b), 401);
  });

  it('page reports answered 202 by either node are stored exactly once, with both flushers draining one buffer', async () => {
    const ids = Array.from({ length: 120 }, () => randomBytes(8).toString('hex'));
    const statuses = await Promise.all(
      ids.map((id, i) =>
        postReport(i % 2 ? b : a, site, { extra: { id }, ip: `198.51.100.${(i % 50) + 1}` }).then((r) => r.status),
      ),
    );
    expect(statuses.every((s) => s === 202)).toBe(true);
    // Both nodes flush at once (their timers would too): a row is taken by one flusher only.
    await Promise.all([a.deps.ingest.flushNow(), b.deps.ingest.flushNow()]);
    await Promise.all([a.deps.ingest.flushNow(), b.deps.ingest.flushNow()]);
    const rows = await a.deps.orm.em
      .fork()
      .execute<{ pageview_id: string; n: string }[]>(
        'select pageview_id, count(*) as n from pageviews where site_id = ? and pageview_id in (?) group by 1',
        [site.siteId, ids],
      );
    expect(rows).toHaveLength(ids.length);
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
  });
});
