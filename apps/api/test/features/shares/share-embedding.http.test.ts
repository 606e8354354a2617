import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHECK_BUDGETS } from '../../../src/core/hot/address-budget.ts';
import { callerFor } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/**
 * A shared view's page may be framed only where its owner allowed it: pages on the site's own hostnames,
 * for a link made with "allow embedding". Every other dashboard page, and every other link, says nobody.
 */
describe('embedding a shared view', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let siteId: string;
  const dist = mkdtempSync(path.join(tmpdir(), 'share-embed-'));
  const pathOf = (url: string) => new URL(url).pathname;

  beforeAll(async () => {
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>dashboard</title><div id="root"></div>');
    t = await startTestServer({ webDist: dist });
    const { user, workspace } = await createUser(t.deps);
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Embedded' })).siteId;
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    owner = callerFor(t.deps, { token });
    for (const hostname of ['shop.embed.test', 'www.shop.embed.test', 'unproven.embed.test']) {
      await t.request
        .post(`/v1/sites/${siteId}/hostnames`)
        .set('Authorization', `Bearer ${token}`)
        .send({ hostname })
        .expect(201);
    }
    // Two proven the site's (their TXT record verified); the third only added, which anyone with sites:write may do.
    await t.deps.orm.em
      .fork()
      .execute(`update site_hostnames set verified_at = now() where site_id = ? and hostname like '%shop.embed.test'`, [siteId]);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('frames a link that allows it on the site’s proven hostnames only, and no other link or page', async () => {
    const { link: open } = await owner.shares.create({ id: siteId, label: 'On our pages', allowEmbedding: true });
    const { link: closed } = await owner.shares.create({ id: siteId, label: 'Board' });
    expect(open.allowEmbedding).toBe(true);
    expect(closed.allowEmbedding).toBe(false);
    const { links } = await owner.shares.list({ id: siteId });
    expect(links.map((l) => [l.label, l.allowEmbedding])).toEqual([
      ['On our pages', true],
      ['Board', false],
    ]);

    const framed = await t.request.get(pathOf(open.url)).expect(200);
    expect(framed.headers['content-security-policy']).toMatch(/frame-ancestors shop\.embed\.test www\.shop\.embed\.test(;|$)/);
    expect(framed.headers['x-frame-options']).toBeUndefined();

    for (const p of [pathOf(closed.url), '/sites', `/share/shr_${'x'.repeat(32)}`, `${pathOf(open.url)}/extra`]) {
      const res = await t.request.get(p).expect(200);
      expect(res.headers['content-security-policy'], p).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options'], p).toBe('DENY');
    }

    // Revoked, the link frames nowhere again.
    await owner.shares.revoke({ id: siteId, linkId: open.id });
    const gone = await t.request.get(pathOf(open.url)).expect(200);
    expect(gone.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(gone.headers['x-frame-options']).toBe('DENY');
  });

  // The attack: a made-up link per request was a database lookup per request, from anyone, before the page was sent.
  it('looks up at most the address’s budget of links a minute; past it the page is sent, framed nowhere', async () => {
    const fork = vi.spyOn(t.deps.orm.em, 'fork');
    try {
      for (let i = 0; i < CHECK_BUDGETS.sharePage + 20; i++) {
        const res = await t.request.get(`/share/shr_${randomBytes(24).toString('base64url').slice(0, 32)}`).expect(200);
        expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      }
      expect(fork.mock.calls.length).toBeLessThanOrEqual(CHECK_BUDGETS.sharePage);
    } finally {
      fork.mockRestore();
    }
  });
});
