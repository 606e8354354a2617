import { Membership, Site } from '@us/db';
import { issuePass } from '@us/protection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { BROWSER_UA } from '../../support/collect.ts';
import { decideFor, type GateSite, gateSite, getConfig } from '../../support/gate.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { type Browser, passTheCheck } from '../../support/pass-flow.ts';
import { createToken, startTestServer, type TestServer } from '../../support/server.ts';

/** A visitor on a cloud network: challenged in `challenge` mode unless it carries a valid pass. */
const visitor: Browser = { ip: '198.51.100.40', ua: BROWSER_UA };
const CLOUD = { asn: 16509 };

/**
 * POST /v1/sites/{id}/bot/pass-key (and the MCP tool rotate_site_pass_key) replaces the key that signs
 * `us_pass` cookies and return tickets. Whoever once saw the old key could mint passes with it forever:
 * after a rotation, nothing signed with it gets anyone in, from the very next decision.
 */
describe('POST /v1/sites/{id}/bot/pass-key', () => {
  let t: TestServer;
  let site: GateSite;

  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    site = await gateSite(t, 'pass-key.example', { mode: 'challenge' });
  });
  afterAll(() => t?.close());

  const rotate = (s: GateSite, auth = s.auth) => t.request.post(`/v1/sites/${s.siteId}/bot/pass-key`).set('Authorization', auth);
  const decide = (pass?: string) =>
    decideFor(t, site, {
      ip: visitor.ip,
      ua: visitor.ua,
      path: '/cart',
      host: site.hostname,
      ...CLOUD,
      ...(pass ? { pass } : {}),
    }).expect(200);

  it('a pass made before the rotation works until it, and is challenged right after; one made with the new key works', async () => {
    const challenged = (await decide()).body;
    expect(challenged.action).toBe('challenge');
    const oldPass = await passTheCheck(t, site, challenged.challengeUrl, visitor);
    // A pass minted directly with the old key, as anyone who saw the key could.
    const oldKey = (await getConfig(t, site).expect(200)).body.passKey as string;
    const minted = await issuePass(oldKey, site.siteId, visitor.ua, visitor.ip);
    for (const pass of [oldPass, minted]) {
      expect((await decide(pass)).body).toMatchObject({ action: 'allow', reason: 'check passed within the last day' });
    }
    // A check begun before the rotation: its ticket is signed with the old key too.
    const pendingCheck = (await decide()).body.challengeUrl as string;

    const res = await rotate(site).expect(200);
    expect(Object.keys(res.body)).toEqual(['rotatedAt']);
    expect(Math.abs(Date.parse(res.body.rotatedAt) - Date.now())).toBeLessThan(60_000);

    // At once, no waiting: both old passes are challenged again.
    for (const pass of [oldPass, minted]) {
      expect((await decide(pass)).body).toMatchObject({ action: 'challenge', reason: 'hosting network: AS16509' });
    }
    // The check page no longer takes the old ticket.
    const url = new URL(pendingCheck);
    expect((await t.request.get(`${url.pathname}${url.search}`).set('X-Forwarded-For', visitor.ip)).status).toBe(400);
    // Edges get the new key with their next config fetch.
    const newKey = (await getConfig(t, site).expect(200)).body.passKey as string;
    expect(newKey).not.toBe(oldKey);

    // The visitor takes the check again and is served with the new pass.
    const fresh = await passTheCheck(t, site, (await decide()).body.challengeUrl, visitor);
    expect((await decide(fresh)).body).toMatchObject({ action: 'allow', reason: 'check passed within the last day' });
    expect((await decide(await issuePass(newKey, site.siteId, visitor.ua, visitor.ip))).body.action).toBe('allow');
  });

  it('the MCP tool rotate_site_pass_key is the same operation', async () => {
    const before = (await getConfig(t, site).expect(200)).body.passKey;
    const token = site.auth.replace(/^Bearer /, '');
    const res = await modernCall(t.url, token, 'tools/call', { name: 'rotate_site_pass_key', arguments: { id: site.siteId } });
    expect(res.body.result.isError ?? false).toBe(false);
    expect(Object.keys(res.body.result.structuredContent)).toEqual(['rotatedAt']);
    expect((await getConfig(t, site).expect(200)).body.passKey).not.toBe(before);
  });

  it('refuses: 401 without credentials, 403 without bot:write, 404 for an unknown site or another workspace’s, 400 for a body', async () => {
    const before = (await getConfig(t, site).expect(200)).body.passKey;
    expectProblem(await t.request.post(`/v1/sites/${site.siteId}/bot/pass-key`), 401);
    // A token of the same workspace that may only read the bot settings.
    const em = t.deps.orm.em.fork();
    const row = await em.findOneOrFail(Site, { id: site.siteId });
    const owner = await em.findOneOrFail(Membership, { workspace: row.workspace.id });
    const reader = await createToken(t.deps, { userId: owner.user.id, workspaceId: row.workspace.id, scopes: ['bot:read'] });
    const refused = expectProblem(await rotate(site, `Bearer ${reader.token}`), 403);
    expect(refused.title).toMatch(/bot:write/);
    expectProblem(
      await t.request.post('/v1/sites/00000000-0000-4000-8000-000000000000/bot/pass-key').set('Authorization', site.auth),
      404,
    );
    const stranger = await gateSite(t, 'pass-key-other.example');
    expectProblem(await rotate(site, stranger.auth), 404);
    expectProblem(await rotate(site).send({ passKey: 'mine' }), 400);
    // None of them changed the key.
    expect((await getConfig(t, site).expect(200)).body.passKey).toBe(before);
  });
});
