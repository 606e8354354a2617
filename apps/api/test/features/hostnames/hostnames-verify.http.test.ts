import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { type DnsStandIn, startDnsServer } from '../../support/dns-server.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite, ownerWithSite } from '../../support/sites.ts';

const uniqueHost = (tag = 'www') => `${tag}.h${randomBytes(5).toString('hex')}.example.test`;

describe('site hostnames: adding, DNS TXT verification, removal', () => {
  let t: TestServer;
  let dns: DnsStandIn;

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestServer({ env: { DNS_SERVERS: dns.address } });
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  /** A user owning a workspace with one site (made through the ORM), and a token with the given scopes. */
  const owner = (scopes?: ('sites:read' | 'sites:write')[]) => ownerWithSite(t, { scopes });

  const add = (auth: string, siteId: string, body: unknown) =>
    t.request
      .post(`/v1/sites/${siteId}/hostnames`)
      .set('Authorization', auth)
      .send(body as object);
  const verify = (auth: string, siteId: string, hostname: string) =>
    t.request.post(`/v1/sites/${siteId}/hostnames/${hostname}/verify`).set('Authorization', auth);

  it('adds a hostname (normalised) with the TXT record to set, then verifies it once the record exists', async () => {
    const o = await owner();
    const host = uniqueHost();
    const res = await add(o.auth, o.site.id, { hostname: `  ${host.toUpperCase()}. ` }).expect(201);
    expect(res.body).toEqual({
      hostname: host,
      proxy: null,
      verifiedAt: null,
      verification: { type: 'TXT', name: `_svc.${host}`, value: expect.stringMatching(/^svc-verify=[0-9a-f]{32}$/) },
      createdAt: expect.any(String),
    });
    const { value } = res.body.verification as { value: string };

    const before = await verify(o.auth, o.site.id, host).expect(200);
    expect(before.body.verified).toBe(false);
    expect(before.body.message).toContain(`_svc.${host}`);
    expect(before.body.message).toContain(value);
    expect(dns.queries).toContain(`_svc.${host}`);

    // A record with another value is not enough, and the answer says so.
    dns.setTxt(`_svc.${host}`, ['svc-verify=someone-else', 'v=spf1 -all']);
    const wrong = await verify(o.auth, o.site.id, host).expect(200);
    expect(wrong.body).toEqual({ verified: false, message: expect.stringContaining(value) });

    dns.setTxt(`_svc.${host}`, ['v=spf1 -all', value]);
    const after = await verify(o.auth, o.site.id, host).expect(200);
    expect(after.body).toEqual({ verified: true });

    const got = await t.request.get(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', o.auth).expect(200);
    expect(got.body).toMatchObject({ hostname: host, proxy: null, verification: null });
    expect(Number.isNaN(Date.parse(got.body.verifiedAt))).toBe(false);
    const row = await t.deps.orm.em.fork().findOneOrFail(SiteHostname, { site: o.site.id, hostname: host });
    expect(row.verifiedAt).toBeInstanceOf(Date);

    // Already verified: answers at once, even with the record gone.
    dns.clear(`_svc.${host}`);
    await verify(o.auth, o.site.id, host).expect(200, { verified: true });
  });

  it('refuses a scheme, path or port with the words of the hostname check, and unknown fields', async () => {
    const o = await owner();
    const scheme = expectProblem(await add(o.auth, o.site.id, { hostname: 'https://www.example.com' }), 400, 'hostname');
    expect(scheme.title).toMatch(/Leave out the scheme/);
    const path = expectProblem(await add(o.auth, o.site.id, { hostname: 'www.example.com/shop' }), 400, 'hostname');
    expect(path.title).toMatch(/Leave out the path/);
    const port = expectProblem(await add(o.auth, o.site.id, { hostname: 'www.example.com:8080' }), 400, 'hostname');
    expect(port.title).toMatch(/Leave out the port/);
    expectProblem(await add(o.auth, o.site.id, {}), 400, 'hostname');
    expectProblem(await add(o.auth, o.site.id, { hostname: uniqueHost(), extra: 1 }), 400, 'extra');
    const origin = expectProblem(
      await add(o.auth, o.site.id, { hostname: uniqueHost(), origin: 'https://origin.example.com' }),
      400,
      'origin',
    );
    expect(origin.title).toMatch(/proxy/);
  });

  it('refuses a hostname the site already has (409) and a 51st hostname (409)', async () => {
    const o = await owner();
    const host = uniqueHost();
    await add(o.auth, o.site.id, { hostname: host }).expect(201);
    const dup = expectProblem(await add(o.auth, o.site.id, { hostname: host.toUpperCase() }), 409);
    expect(dup.title).toContain(host);

    const em = t.deps.orm.em.fork();
    for (let i = 0; i < 49; i++) {
      em.create(SiteHostname, { site: o.site.id, hostname: `n${i}.${host}`, verifyToken: 'x'.repeat(32) });
    }
    await em.flush();
    const full = expectProblem(await add(o.auth, o.site.id, { hostname: uniqueHost() }), 409);
    expect(full.title).toMatch(/50 hostnames/);

    // The same hostname on another site is fine (only proxy mode is exclusive).
    const other = await owner();
    await add(other.auth, other.site.id, { hostname: host }).expect(201);
  });

  it('allows 30 checks per hour per site, then answers 429 with Retry-After', async () => {
    const o = await owner();
    const a = uniqueHost('a');
    const b = uniqueHost('b');
    await add(o.auth, o.site.id, { hostname: a }).expect(201);
    await add(o.auth, o.site.id, { hostname: b }).expect(201);
    for (let i = 0; i < 30; i++) {
      const res = await verify(o.auth, o.site.id, i % 2 ? a : b).expect(200);
      expect(res.body.verified).toBe(false);
    }
    const res = await verify(o.auth, o.site.id, a);
    const problem = expectProblem(res, 429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(problem.title).toMatch(/wait \d+ seconds/);

    // Another site has its own allowance.
    const other = await owner();
    const c = uniqueHost();
    await add(other.auth, other.site.id, { hostname: c }).expect(201);
    await verify(other.auth, other.site.id, c).expect(200);
  });

  it('removes a hostname (204); then it is 404', async () => {
    const o = await owner();
    const host = uniqueHost();
    await add(o.auth, o.site.id, { hostname: host }).expect(201);
    await t.request.delete(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', o.auth).expect(204);
    expectProblem(await t.request.get(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', o.auth), 404);
    expectProblem(await t.request.delete(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', o.auth), 404);
    expectProblem(await verify(o.auth, o.site.id, host), 404);
  });

  it("answers 404 for another workspace's site, and 403 without sites:write", async () => {
    const o = await owner();
    const host = uniqueHost();
    await add(o.auth, o.site.id, { hostname: host }).expect(201);
    const stranger = await owner();
    expectProblem(await add(stranger.auth, o.site.id, { hostname: uniqueHost() }), 404);
    expectProblem(await t.request.get(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', stranger.auth), 404);
    expectProblem(await verify(stranger.auth, o.site.id, host), 404);
    expectProblem(await t.request.delete(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', stranger.auth), 404);
    expectProblem(await add(stranger.auth, 'not-a-uuid', { hostname: uniqueHost() }), 404);

    const reader = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
    const refused = expectProblem(await add(`Bearer ${reader.token}`, o.site.id, { hostname: uniqueHost() }), 403);
    expect(refused.title).toContain('sites:write');
    await t.request.get(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', `Bearer ${reader.token}`).expect(200);

    // A token restricted to other sites does not see this one.
    const restricted = await createToken(t.deps, {
      userId: o.user.id,
      workspaceId: o.workspace.id,
      scopes: ['sites:read', 'sites:write'],
      siteIds: [stranger.site.id],
    });
    expectProblem(
      await t.request.get(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', `Bearer ${restricted.token}`),
      404,
    );
  });

  it('replays an idempotent add with the same Idempotency-Key', async () => {
    const o = await owner();
    const host = uniqueHost();
    const first = await add(o.auth, o.site.id, { hostname: host }).set('Idempotency-Key', `k-${host}`).expect(201);
    const again = await add(o.auth, o.site.id, { hostname: host }).set('Idempotency-Key', `k-${host}`).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('works as MCP tools: create_site_hostname, verify_site_hostname, get_site_hostname', async () => {
    const o = await owner();
    const host = uniqueHost();
    const created = await modernCall(t.url, o.token, 'tools/call', {
      name: 'create_site_hostname',
      arguments: { id: o.site.id, hostname: host },
    });
    expect(created.body.result.isError).toBeFalsy();
    expect(created.body.result.structuredContent).toMatchObject({ hostname: host, verifiedAt: null });
    const checked = await modernCall(t.url, o.token, 'tools/call', {
      name: 'verify_site_hostname',
      arguments: { id: o.site.id, hostname: host },
    });
    expect(checked.body.result.structuredContent).toMatchObject({ verified: false });
    expect(checked.body.result.structuredContent.message).toContain(`_svc.${host}`);
    const got = await modernCall(t.url, o.token, 'tools/call', {
      name: 'get_site_hostname',
      arguments: { id: o.site.id, hostname: host },
    });
    expect(got.body.result.structuredContent).toMatchObject({ hostname: host, proxy: null });
  });
});

describe('hostname verification when the DNS servers do not answer', () => {
  it('answers verified false with a message naming the record (no 5xx)', async () => {
    const dns = await startDnsServer();
    const address = dns.address;
    await dns.close();
    const t = await startTestServer({ env: { DNS_SERVERS: address } });
    try {
      const { user, workspace } = await createUser(t.deps);
      const em = t.deps.orm.em.fork();
      const { site } = await createSite(em, { workspace: workspace.id, name: 'S' });
      await em.flush();
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:write'] });
      const host = uniqueHost();
      const auth = `Bearer ${token}`;
      await t.request.post(`/v1/sites/${site.id}/hostnames`).set('Authorization', auth).send({ hostname: host }).expect(201);
      const res = await t.request.post(`/v1/sites/${site.id}/hostnames/${host}/verify`).set('Authorization', auth).expect(200);
      expect(res.body.verified).toBe(false);
      expect(res.body.message).toMatch(/lookup .* failed/);
      expect(res.body.message).toContain(`_svc.${host}`);
    } finally {
      await t.close();
    }
  });
});
