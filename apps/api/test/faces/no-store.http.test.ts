import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor } from '../support/caller.ts';
import { createToken, createUser, signIn, startTestServer, type TestServer } from '../support/server.ts';
import { createSite } from '../support/sites.ts';

/**
 * The API's answers are a caller's own (figures, settings, a link's secret URL): `Cache-Control: no-store`, so a
 * shared cache keyed by URL only (a CDN's "cache everything", Varnish's default 120 s) or the browser's disk after
 * sign-out keeps none of them. Public documents keep their own header.
 */

const trpcGet = (path: string, input: unknown) =>
  input === undefined ? `/trpc/${path}` : `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;

describe('API answers are not stored by caches', () => {
  let t: TestServer;
  let siteId: string;
  let auth: string;
  let cookie: string;
  let view: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace, email } = await createUser(t.deps);
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Kept private' })).siteId;
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    auth = `Bearer ${token}`;
    cookie = await signIn(t, email);
    const { link } = await callerFor(t.deps, { token }).shares.create({ id: siteId, label: 'Kept private' });
    const secret = link.url.split('/share/')[1] as string;
    const opened = await t.request.post('/trpc/shares.open').send({ token: secret }).expect(200);
    view = opened.body.result.data.view;
  });
  afterAll(() => t.close());

  it('REST answers to a bearer token', async () => {
    const site = await t.request.get(`/v1/sites/${siteId}`).set('Authorization', auth).expect(200);
    expect(site.headers['cache-control']).toContain('no-store');
    const me = await t.request.get('/v1/me').set('Authorization', auth).expect(200);
    expect(me.headers['cache-control']).toContain('no-store');
  });

  it('tRPC queries sent as GET with a session cookie, one call or a batch', async () => {
    const shares = await t.request
      .get(trpcGet('shares.list', { id: siteId }))
      .set('Cookie', cookie)
      .expect(200);
    expect(JSON.stringify(shares.body)).toContain('/share/');
    expect(shares.headers['cache-control']).toContain('no-store');
    const batch = await t.request
      .get(`/trpc/sites.list,shares.list?batch=1&input=${encodeURIComponent(JSON.stringify({ 1: { id: siteId } }))}`)
      .set('Cookie', cookie)
      .expect(200);
    expect(batch.headers['cache-control']).toContain('no-store');
  });

  it('tRPC queries of a shared link’s viewer (X-Share-View, no cookie)', async () => {
    const summary = await t.request
      .get(trpcGet('stats.summary', { id: siteId, days: 7 }))
      .set('X-Share-View', view)
      .expect(200);
    expect(summary.body.result.data.measures).toBeDefined();
    expect(summary.headers['cache-control']).toContain('no-store');
  });

  it('problem answers, on REST and tRPC', async () => {
    const rest = await t.request.get('/v1/sites/not-a-uuid').set('Authorization', auth);
    expect(rest.status).toBeGreaterThanOrEqual(400);
    expect(rest.status).toBeLessThan(500);
    expect(rest.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(rest.headers['cache-control']).toContain('no-store');
    const unknown = await t.request.get('/v1/no-such-route').set('Authorization', auth).expect(404);
    expect(unknown.headers['cache-control']).toContain('no-store');
    const refused = await t.request
      .get(trpcGet('sites.get', { id: siteId }))
      .set('X-Share-View', view)
      .expect(403);
    expect(refused.headers['cache-control']).toContain('no-store');
  });

  it('public documents keep their own header', async () => {
    const type = await t.request.get('/problems/plan-limit').expect(200);
    expect(type.headers['cache-control']).toBe('public, max-age=86400');
  });
});
