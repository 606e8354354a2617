import { SiteHostname } from '@us/db';
import { newKey, PASS_COOKIE, seal, verifyPass } from '@us/protection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueGrant } from '../../src/features/protection/challenge/grant.ts';
import { type CheckSite, checkSite } from '../support/check.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * `/_us/pass` on the customer's hostname turns a grant into the `us_pass` cookie and sends the browser
 * back. Attacks: a grant replayed, expired, tampered with, for another host, arriving without the edge's
 * secret (so its x-forwarded-host is not believed), or carrying a path that would leave the host.
 */
const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const VISITOR = '203.0.113.7';

describe('attack: /_us/pass', () => {
  let t: TestServer;
  let s: CheckSite;
  beforeAll(async () => {
    t = await startTestServer();
    s = await checkSite(t);
  });
  afterAll(() => t.close());

  const grant = (fields: Partial<{ h: string; p: string }> = {}, now = Date.now()) =>
    issueGrant(s.passKey, { s: s.siteId, h: s.hosts.verified, p: '/shop/cart?x=1', ...fields }, now);

  /** As the edge SDK forwards it: the customer's hostname, the site's secret, the visitor's address. */
  const viaEdge = (g: string, headers: Record<string, string> = {}) =>
    t.request
      .get(`/_us/pass?g=${encodeURIComponent(g)}`)
      .set({
        'x-forwarded-host': s.hosts.verified,
        'x-forwarded-proto': 'https',
        'x-svc-proxy': s.secret,
        'x-svc-client-ip': VISITOR,
      })
      .set('User-Agent', UA)
      .set(headers);

  const cookieOf = (res: { headers: Record<string, unknown> }) =>
    ([] as string[])
      .concat((res.headers['set-cookie'] as string[] | undefined) ?? [])
      .find((c) => c.startsWith(`${PASS_COOKIE}=`));

  const expectRefused = (
    res: { status: number; headers: Record<string, unknown>; text: string },
    status: number,
    text: RegExp,
  ) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers.location).toBeUndefined();
    expect(cookieOf(res)).toBeUndefined();
    expect(res.text).toMatch(text);
  };

  it('sets us_pass (HttpOnly, Secure, SameSite=Lax, a day) and sends the browser back to its path on this host', async () => {
    const res = await viaEdge(await grant());
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/shop/cart?x=1');
    expect(res.headers['cache-control']).toBe('no-store');
    const cookie = cookieOf(res) as string;
    const [pair, ...attrs] = cookie.split('; ');
    expect(attrs).toEqual(['Path=/', 'Max-Age=86400', 'HttpOnly', 'Secure', 'SameSite=Lax']);
    const value = (pair as string).slice(PASS_COOKIE.length + 1);
    // Bound to the site, this browser and its /24: the edge checks it locally.
    expect(await verifyPass(s.passKey, s.siteId, UA, VISITOR, value)).toBe(true);
    expect(await verifyPass(s.passKey, s.siteId, UA, '203.0.113.200', value)).toBe(true);
    expect(await verifyPass(s.passKey, s.siteId, UA, '198.51.100.7', value)).toBe(false);
    expect(await verifyPass(s.passKey, s.siteId, `${UA} Edg/126`, VISITOR, value)).toBe(false);
    expect(await verifyPass(s.passKey, '00000000-0000-4000-8000-000000000000', UA, VISITOR, value)).toBe(false);
    expect(await verifyPass(newKey(), s.siteId, UA, VISITOR, value)).toBe(false);
  });

  it('serves a proxy-mode hostname reaching the service directly, by its Host header and the connection’s address', async () => {
    const res = await t.request
      .get(`/_us/pass?g=${encodeURIComponent(await grant({ h: s.hosts.proxyActive, p: '/' }))}`)
      .set('Host', s.hosts.proxyActive)
      .set('User-Agent', UA);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    const value = (cookieOf(res) as string).split(';')[0]?.slice(PASS_COOKIE.length + 1);
    expect(await verifyPass(s.passKey, s.siteId, UA, '127.0.0.1', value)).toBe(true);
  });

  it('takes a grant once: again is 410 with a page saying to load the page again', async () => {
    const g = await grant();
    expect((await viaEdge(g)).status).toBe(303);
    expectRefused(await viaEdge(g), 410, /Load the page you wanted again/);
  });

  it('refuses an expired grant (410)', async () => {
    expectRefused(await viaEdge(await grant({}, Date.now() - 121_000)), 410, /This link has expired/);
  });

  it('refuses a grant for another host of the same site (400)', async () => {
    const g = await grant({ h: s.hosts.proxyActive });
    expectRefused(await viaEdge(g), 400, /This link is not valid/);
    // …and it stays usable where it belongs: the refusal did not use it up.
    expect((await viaEdge(g, { 'x-forwarded-host': s.hosts.proxyActive })).status).toBe(303);
  });

  it('does not believe x-forwarded-host without the site’s secret (400)', async () => {
    const g = await grant();
    const bare = await t.request
      .get(`/_us/pass?g=${encodeURIComponent(g)}`)
      .set('x-forwarded-host', s.hosts.verified)
      .set('User-Agent', UA);
    expectRefused(bare, 400, /not valid/);
    expectRefused(await viaEdge(g, { 'x-svc-proxy': 'sk_live_' + 'A'.repeat(32) }), 400, /not valid/);
    const other = await checkSite(t);
    expectRefused(await viaEdge(g, { 'x-svc-proxy': other.secret }), 400, /not valid/);
  });

  it('takes the visitor’s address from x-svc-client-ip only with the secret, and only when it is an address', async () => {
    // Without the secret (a proxy-mode hostname reaching us directly): the connection's address.
    const direct = await t.request
      .get(`/_us/pass?g=${encodeURIComponent(await grant({ h: s.hosts.proxyActive }))}`)
      .set({ Host: s.hosts.proxyActive, 'x-svc-client-ip': VISITOR, 'User-Agent': UA });
    const directValue = (cookieOf(direct) as string).split(';')[0]?.slice(PASS_COOKIE.length + 1);
    expect(await verifyPass(s.passKey, s.siteId, UA, VISITOR, directValue)).toBe(false);
    expect(await verifyPass(s.passKey, s.siteId, UA, '127.0.0.1', directValue)).toBe(true);
    // With the secret but no usable address: the connection's address too.
    const res = await viaEdge(await grant(), { 'x-svc-client-ip': 'not-an-ip' });
    const value = (cookieOf(res) as string).split(';')[0]?.slice(PASS_COOKIE.length + 1);
    expect(await verifyPass(s.passKey, s.siteId, UA, '127.0.0.1', value)).toBe(true);
  });

  it('refuses a grant tampered with or signed with another key (400)', async () => {
    const g = await grant();
    const [body, sig] = g.split('.') as [string, string];
    const swapped = Buffer.from(
      JSON.stringify({ s: s.siteId, h: s.hosts.verified, p: '//evil.example', e: 9_999_999_999, n: 'x' }),
    ).toString('base64url');
    for (const bad of [
      `${swapped}.${sig}`,
      `${body}.${'A'.repeat(22)}`,
      await seal(newKey(), { s: s.siteId, h: s.hosts.verified, p: '/', e: 9_999_999_999, n: 'x' }),
    ]) {
      expectRefused(await viaEdge(bad), 400, /not valid/);
    }
  });

  it.each([
    '//evil.example',
    '//evil.example/x',
    'https://evil.example',
    '/\\evil.example',
    '/\t/evil.example',
    'evil.example',
    '',
  ])('never redirects off the host, even for a signed grant whose path is %j (400)', async (p) => {
    expectRefused(await viaEdge(await grant({ p })), 400, /not valid/);
  });

  it('refuses a ticket presented as a grant, and a missing or malformed grant (400)', async () => {
    expectRefused(await viaEdge(await s.ticket()), 400, /not valid/);
    for (const q of ['', '?g=', '?g=x', '?g[]=a', `?g=${'a'.repeat(9000)}.${'b'.repeat(22)}`]) {
      const res = await t.request.get(`/_us/pass${q}`).set({ 'x-forwarded-host': s.hosts.verified, 'x-svc-proxy': s.secret });
      expectRefused(res, 400, /not valid/);
    }
  });

  it('refuses once the hostname is no longer the site’s, or was never proven (400)', async () => {
    const other = await checkSite(t);
    const g = await issueGrant(other.passKey, { s: other.siteId, h: other.hosts.verified, p: '/' });
    await t.deps.orm.em.fork().nativeDelete(SiteHostname, { site: other.siteId, hostname: other.hosts.verified });
    const res = await t.request
      .get(`/_us/pass?g=${encodeURIComponent(g)}`)
      .set({ 'x-forwarded-host': other.hosts.verified, 'x-svc-proxy': other.secret });
    expectRefused(res, 400, /not valid/);
    const pending = await grant({ h: s.hosts.proxyPending });
    expectRefused(await viaEdge(pending, { 'x-forwarded-host': s.hosts.proxyPending }), 400, /not valid/);
  });

  it('speaks the visitor’s language on its refusals', async () => {
    const res = await viaEdge(await grant({}, Date.now() - 121_000), { 'Accept-Language': 'de-DE,de;q=0.9' });
    expect(res.status).toBe(410);
    expect(res.text).toContain('<html lang="de">');
    expect(res.text).toContain('Dieser Link ist abgelaufen');
  });

  it('keeps other methods and paths of /_us/ a 404 problem', async () => {
    const res = await t.request.post('/_us/pass').set('x-forwarded-host', s.hosts.verified);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });
});
