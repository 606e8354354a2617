import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/auth-helpers.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../support/server.ts';
import { createSite } from '../support/sites.ts';

const uniqueHost = () => `shop.p${randomBytes(5).toString('hex')}.example.test`;

/**
 * Anyone can add someone else's hostname in proxy mode; until the edge platform has validated it
 * (status active) nothing proves the workspace controls it, so it must not carry internal links.
 */
describe('attack: an internal link on a proxy-mode hostname nobody has proven', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  async function siteWithProxyHost(edgeStatus: string | null) {
    const { user, workspace } = await createUser(t.deps);
    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: workspace.id, name: 'Proxy shop' });
    const hostname = uniqueHost();
    em.create(SiteHostname, {
      site,
      hostname,
      verifyToken: 'c'.repeat(32),
      proxy: true,
      origin: 'https://origin.example.test',
      edgeId: `edge-${randomBytes(4).toString('hex')}`,
      edgeStatus,
      verifiedAt: edgeStatus === 'active' ? new Date() : null,
    });
    await em.flush();
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write'],
    });
    return { auth: `Bearer ${token}`, siteId: site.id, hostname };
  }

  const issue = (s: { auth: string; siteId: string; hostname: string }) =>
    t.request.post(`/v1/sites/${s.siteId}/internal-link`).set('Authorization', s.auth).send({ hostname: s.hostname });

  it.each(['pending', 'pending_validation', 'moved', null])(
    'is refused while the edge status is %s (400 hostname)',
    async (status) => {
      const s = await siteWithProxyHost(status);
      const body = expectProblem(await issue(s), 400, 'hostname');
      expect(body.title).toMatch(/finish the proxy setup/i);
      expect(body.title).toContain(s.hostname);
    },
  );

  it('is issued once the edge platform has validated the hostname (active)', async () => {
    const s = await siteWithProxyHost('active');
    const res = await issue(s).expect(201);
    expect(res.body.url).toMatch(new RegExp(`^https://${s.hostname.replace(/\./g, '\\.')}/_us/internal\\?token=`));
  });
});
