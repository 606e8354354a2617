import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARE_CALLS_PER_MINUTE } from '../../../src/actor/share-view.ts';
import { SHARE_OPENS_PER_ADDRESS_PER_MINUTE } from '../../../src/features/shares/open.ts';
import { revokeTokenTrees } from '../../../src/features/tokens/revocation.ts';
import { callerFor } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** Shared links over the wire: where the view header counts, and the budgets a stranger meets. */

const trpcGet = (path: string, input: unknown) =>
  input === undefined ? `/trpc/${path}` : `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;
const trpcPost = (path: string) => `/trpc/${path}`;

describe('shared links over HTTP', () => {
  let t: TestServer;
  let siteId: string;
  let ownerToken: string;
  let view: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Wire' })).siteId;
    ownerToken = (
      await createToken(t.deps, {
        userId: user.id,
        workspaceId: workspace.id,
        scopes: ['sites:read', 'sites:write', 'analytics:read'],
      })
    ).token;
    const owner = callerFor(t.deps, { token: ownerToken });
    const { link } = await owner.shares.create({ id: siteId, label: 'Wire' });
    const token = link.url.split('/share/')[1] as string;
    const opened = await t.request.post(trpcPost('shares.open')).send({ token }).expect(200);
    view = opened.body.result.data.view;
    expect(view).toMatch(/^[0-9a-f-]{36}\.\d+\.[0-9a-f]{64}$/);
  });
  afterAll(() => t.close());

  // The attack: a leaked token with sites:write and analytics:read makes a shared link; the owner revokes the token,
  // and the link went on opening a fresh view of the site's figures, for good.
  it('a link made with a token goes when the token is revoked', async () => {
    const { user, workspace } = await createUser(t.deps);
    const site = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Leaked' })).siteId;
    const leaked = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    const { link } = await callerFor(t.deps, { token: leaked.token }).shares.create({ id: site, label: 'Theirs' });
    const secret = link.url.split('/share/')[1] as string;
    await t.request.post(trpcPost('shares.open')).send({ token: secret }).expect(200);
    // What DELETE /v1/tokens/{id} and a password reset do to the token.
    await revokeTokenTrees(t.deps.orm.em.fork(), [leaked.id], { deleteLinks: true });
    const refused = await t.request.post(trpcPost('shares.open')).send({ token: secret });
    expect(refused.status).toBe(404);
  });

  // The same attack through the other ways figures leave the site: an alert with a webhook of theirs, an e-mail
  // report to an address of theirs. Both went on after the token was revoked.
  it('alerts and e-mail reports made or changed with a token go when the token is revoked; the owner’s stay', async () => {
    const { user, workspace } = await createUser(t.deps);
    const site = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Leaked feeds' })).siteId;
    const scopes = ['sites:read', 'sites:write', 'analytics:read'] as const;
    const leaked = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: [...scopes] });
    const ownerCaller = callerFor(t.deps, {
      token: (await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: [...scopes] })).token,
    });
    const thief = callerFor(t.deps, { token: leaked.token });
    const made = await thief.alerts.create({ id: site, kind: 'first_pageview', webhookUrl: 'https://hooks.example.net/theirs' });
    const owners = await ownerCaller.alerts.create({
      id: site,
      kind: 'first_pageview',
      webhookUrl: 'https://hooks.example.com/ours',
    });
    const changed = await ownerCaller.alerts.create({
      id: site,
      kind: 'first_pageview',
      webhookUrl: 'https://hooks.example.com/2',
    });
    await thief.alerts.update({ id: site, alert: changed.alert.id, webhookUrl: 'https://hooks.example.net/moved' });
    await thief.reports.add({ id: site, address: 'thief@example.net', frequency: 'weekly' });
    await ownerCaller.reports.add({ id: site, address: 'owner@example.com', frequency: 'weekly' });

    await revokeTokenTrees(t.deps.orm.em.fork(), [leaked.id], { deleteLinks: true });
    const alerts = (await ownerCaller.alerts.list({ id: site })).alerts.map((a) => a.id);
    expect(alerts).toEqual([owners.alert.id]);
    expect(alerts).not.toContain(made.alert.id);
    const reports = (await ownerCaller.reports.list({ id: site })).reports.map((r) => r.address);
    expect(reports).toEqual(['owner@example.com']);
  });

  it('is honoured on the dashboard face only: REST and MCP take no view', async () => {
    const summary = await t.request.get(trpcGet('stats.summary', { id: siteId, days: 7 })).set('X-Share-View', view);
    expect(summary.status).toBe(200);
    expect(summary.body.result.data.measures).toBeDefined();
    const rest = await t.request.get(`/v1/sites/${siteId}/summary?days=7`).set('X-Share-View', view);
    expect(rest.status).toBe(401);
    expect(rest.headers['content-type']).toMatch(/application\/problem\+json/);
    const mcp = await t.request
      .post('/mcp')
      .set('X-Share-View', view)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcp.status).toBe(401);
    // A view refuses what is not figures with the dashboard's own problem shape.
    const settings = await t.request.get(trpcGet('sites.get', { id: siteId })).set('X-Share-View', view);
    expect(settings.status).toBe(403);
    expect(settings.body.error.data.problem.title).toMatch(/shared link shows the dashboard only/);
    // A view is its own caller: a session cookie beside it does not widen it.
    const withCookie = await t.request
      .get(trpcGet('sites.list', undefined))
      .set('X-Share-View', view)
      .set('Cookie', 'us_session=whatever');
    expect(withCookie.status).toBe(403);
  });

  it('stops a stranger sweeping link secrets from one address; other addresses still open links', async () => {
    const sweep = await Promise.all(
      Array.from({ length: SHARE_OPENS_PER_ADDRESS_PER_MINUTE + 5 }, () =>
        t.request.post(trpcPost('shares.open')).send({ token: `shr_${randomBytes(24).toString('base64url')}` }),
      ),
    );
    const statuses = sweep.map((r) => r.status);
    // The opening in beforeAll counted too: at most the allowance was looked up, the rest waited.
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(SHARE_OPENS_PER_ADDRESS_PER_MINUTE);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    const refused = sweep.find((r) => r.status === 429);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
  });

  it(`gives one link ${SHARE_CALLS_PER_MINUTE} requests a minute over all its viewers; the owner's own dashboard still answers`, async () => {
    const hammer = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < SHARE_CALLS_PER_MINUTE + 10; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, () => t.request.get(trpcGet('stats.catalogue', undefined)).set('X-Share-View', view)),
        );
        statuses.push(...batch.map((r) => r.status));
      }
      return statuses;
    };
    const statuses = await hammer();
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(SHARE_CALLS_PER_MINUTE);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const owner = await t.request.get(`/v1/sites/${siteId}/summary?days=7`).set('Authorization', `Bearer ${ownerToken}`);
    expect(owner.status).toBe(200);
  });
});
