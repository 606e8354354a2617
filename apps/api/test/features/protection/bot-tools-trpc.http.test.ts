import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations } from '../../../src/procedures/registry.ts';
import { appRouter } from '../../../src/router.ts';
import { createToken, createUser, signIn, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/**
 * The Protection page's tools over the dashboard's face (tRPC at /trpc): who may call them, and that
 * they are on no other face (no REST route, no MCP tool).
 */
describe('bot tools over tRPC', () => {
  let t: TestServer;
  let siteId: string;
  let viewerCookie: string;
  let botOnly: string;
  let analyticsOnly: string;

  beforeAll(async () => {
    t = await startTestServer();
    const viewer = await createUser(t.deps, { role: 'viewer' });
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: viewer.workspace.id })).siteId;
    viewerCookie = await signIn(t, viewer.email);
    const token = async (scopes: Parameters<typeof createToken>[1]['scopes']) =>
      `Bearer ${(await createToken(t.deps, { userId: viewer.user.id, workspaceId: viewer.workspace.id, scopes })).token}`;
    botOnly = await token(['bot:read']);
    analyticsOnly = await token(['analytics:read']);
  });
  afterAll(() => t.close());

  const settings = { mode: 'challenge', bots: 'allow', rules: [] };
  const aiTrafficUrl = () => `/trpc/botTools.aiTraffic?input=${encodeURIComponent(JSON.stringify({ id: siteId, days: 7 }))}`;

  it('answers a viewer signed in to the dashboard (roles hold bot:read and analytics:read)', async () => {
    const tried = await t.request
      .post('/trpc/botTools.tryRequest')
      .set('Cookie', viewerCookie)
      .send({ id: siteId, userAgent: 'curl/8.5.0', path: '/' })
      .expect(200);
    expect(tried.body.result.data.decision).toMatchObject({ action: 'allow', reason: 'off: protection is off' });
    const dry = await t.request
      .post('/trpc/botTools.dryRun')
      .set('Cookie', viewerCookie)
      .send({ id: siteId, ...settings })
      .expect(200);
    expect(dry.body.result.data).toMatchObject({ requests: 0, totals: { allow: 0, challenge: 0, deny: 0 } });
    const ai = await t.request.get(aiTrafficUrl()).set('Cookie', viewerCookie).expect(200);
    expect(ai.body.result.data.pages).toEqual([]);
  });

  it('refuses callers without credentials (401) or a scope (403 naming it), with the problem', async () => {
    const anonymous = await t.request.post('/trpc/botTools.tryRequest').send({ id: siteId, userAgent: '', path: '/' });
    expect(anonymous.status).toBe(401);
    const noBot = await t.request
      .post('/trpc/botTools.tryRequest')
      .set('Authorization', analyticsOnly)
      .send({ id: siteId, userAgent: '', path: '/' });
    expect(noBot.status).toBe(403);
    expect(noBot.body.error.data.problem.title).toContain('bot:read');
    await t.request
      .post('/trpc/botTools.tryRequest')
      .set('Authorization', botOnly)
      .send({ id: siteId, userAgent: '', path: '/' })
      .expect(200);
    const noAnalytics = await t.request
      .post('/trpc/botTools.dryRun')
      .set('Authorization', botOnly)
      .send({ id: siteId, ...settings });
    expect(noAnalytics.status).toBe(403);
    expect(noAnalytics.body.error.data.problem.title).toContain('analytics:read');
    const aiNoAnalytics = await t.request.get(aiTrafficUrl()).set('Authorization', botOnly);
    expect(aiNoAnalytics.status).toBe(403);
  });

  it('names the refused rule field on the wire', async () => {
    const res = await t.request
      .post('/trpc/botTools.dryRun')
      .set('Cookie', viewerCookie)
      .send({ id: siteId, ...settings, rules: [{ action: 'deny', match: { country: 'DEU' } }] });
    expect(res.status).toBe(400);
    expect(res.body.error.data.problem).toMatchObject({ status: 400, field: 'rules[0].match.country' });
  });

  it('is on the dashboard face only: no REST route, no MCP tool', async () => {
    const ops = listOperations(appRouter).filter((op) => op.path.startsWith('botTools.'));
    expect(ops.map((op) => op.path).sort()).toEqual(['botTools.aiTraffic', 'botTools.dryRun', 'botTools.tryRequest']);
    for (const op of ops) {
      expect(op.meta.openapi, op.path).toBeUndefined();
      expect(op.meta.mcp, op.path).toBeUndefined();
    }
    const doc = await t.request.get('/v1/openapi.json').expect(200);
    expect(JSON.stringify(Object.keys(doc.body.paths))).not.toMatch(/dry|try|ai-traffic/i);
  });
});
