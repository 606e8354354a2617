import { randomBytes } from 'node:crypto';
import { Site, SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/core/security/tokens.ts';
import { internalKeyOf } from '../../../src/features/internal-link/internal-key.ts';
import { newInternalKey, parseInternalMark, verifyInternalMark } from '../../../src/features/internal-link/mark.ts';
import { cookieAttributes, expectProblem, setCookies } from '../../support/auth-helpers.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { ownerWithSite } from '../../support/sites.ts';

const uniqueHost = (tag = 'www') => `${tag}.i${randomBytes(5).toString('hex')}.example.test`;

describe('internal link and the first-party /_us/internal path', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** A workspace with one site whose hostnames are `verified` (verifiedAt set), `unverified` and `proxy` (validated at the edge). */
  async function owner(siteName = 'Acme shop') {
    const o = await ownerWithSite(t, { siteName });
    const site = o.site.id;
    const em = t.deps.orm.em.fork();
    const verified = uniqueHost('www');
    const unverified = uniqueHost('beta');
    const proxy = uniqueHost('edge');
    em.create(SiteHostname, { site, hostname: verified, verifyToken: 'a'.repeat(32), verifiedAt: new Date() });
    em.create(SiteHostname, { site, hostname: unverified, verifyToken: 'b'.repeat(32) });
    em.create(SiteHostname, {
      site,
      hostname: proxy,
      verifyToken: 'c'.repeat(32),
      proxy: true,
      origin: 'https://o.example.test',
      edgeId: 'edge-internal-link-test',
      edgeStatus: 'active',
      verifiedAt: new Date(),
    });
    await em.flush();
    return { ...o, verified, unverified, proxy };
  }

  const issue = (auth: string, siteId: string, hostname: string) =>
    t.request.post(`/v1/sites/${siteId}/internal-link`).set('Authorization', auth).send({ hostname });

  /** Follows a link the way a browser on the site's hostname would: its path, with the hostname as Host. */
  const follow = (url: string, cookie?: string, host = new URL(url).hostname) => {
    const u = new URL(url);
    const req = t.request.get(`${u.pathname}${u.search}`).set('Host', host);
    return cookie ? req.set('Cookie', cookie) : req;
  };

  const markLine = (res: { headers: Record<string, unknown> }) =>
    setCookies(res as never).find((c) => c.startsWith('us_internal='));

  /** The site as a mark is checked against: its id and its internal key, unsealed. */
  const currentSite = async (id: string) => {
    const site = await t.deps.orm.em.fork().findOneOrFail(Site, { id });
    return { id, internalKey: internalKeyOf(t.deps.ciphers, site) };
  };

  it('refuses a hostname that is not verified (400 hostname, says to verify first) or not on the site', async () => {
    const o = await owner();
    const unverified = expectProblem(await issue(o.auth, o.site.id, o.unverified), 400, 'hostname');
    expect(unverified.title).toMatch(/^Verify .* first/);
    expect(unverified.title).toContain(`_svc.${o.unverified}`);
    expectProblem(await issue(o.auth, o.site.id, uniqueHost()), 400, 'hostname');
    expectProblem(await issue(o.auth, o.site.id, 'https://x.example.test'), 400, 'hostname');
    expectProblem(
      await t.request.post(`/v1/sites/${o.site.id}/internal-link`).set('Authorization', o.auth).send({}),
      400,
      'hostname',
    );
  });

  it('issues a ten-minute link for a verified hostname; following it marks the browser for 90 days', async () => {
    const o = await owner('Acme <shop>');
    const before = Date.now();
    const res = await issue(o.auth, o.site.id, o.verified.toUpperCase()).expect(201);
    expect(res.body.url).toMatch(new RegExp(`^https://${o.verified.replace(/\./g, '\\.')}/_us/internal\\?token=[A-Za-z0-9_-]+$`));
    const expiresAt = Date.parse(res.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);

    const page = await follow(res.body.url).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('This browser is now marked as internal for Acme &lt;shop&gt;');
    const line = markLine(page);
    expect(line).toBeDefined();
    const attrs = cookieAttributes(line as string);
    expect(attrs.get('path')).toBe('/');
    expect(attrs.get('max-age')).toBe(String(90 * 24 * 3600));
    expect(attrs.get('samesite')).toBe('Lax');
    expect(attrs.has('secure')).toBe(true);
    expect(attrs.has('httponly')).toBe(false);
    const value = (line as string).split(';')[0]?.slice('us_internal='.length) as string;
    expect(value).toMatch(new RegExp(`^v1\\.${o.site.id}\\.[A-Za-z0-9_-]+\\.\\d+\\.[A-Za-z0-9_-]+$`));
    const site = await currentSite(o.site.id);
    expect(verifyInternalMark(site, value)).toBe(true);
    expect(verifyInternalMark({ id: site.id, internalKey: newInternalKey() }, value)).toBe(false);
    expect(verifyInternalMark(site, `${value}x`)).toBe(false);
    // Older than 90 days no longer counts.
    expect(verifyInternalMark(site, value, Date.now() + 91 * 24 * 3600 * 1000)).toBe(false);

    // Once per browser: the same browser (carrying the mark) cannot use it again ...
    const again = await follow(res.body.url, `us_internal=${value}`).expect(410);
    expect(again.headers['content-type']).toMatch(/^text\/html/);
    expect(again.text).toMatch(/already used this internal link/);
    expect(markLine(again)).toBeUndefined();
    // ... another browser of the team can, within the ten minutes.
    const other = await follow(res.body.url).expect(200);
    expect(parseInternalMark(markLine(other)?.split(';')[0]?.slice('us_internal='.length))?.linkId).toBe(
      parseInternalMark(value)?.linkId,
    );
  });

  it('a validated proxy-mode hostname may carry the link, and any hostname of the site may be the Host', async () => {
    const o = await owner();
    const res = await issue(o.auth, o.site.id, o.proxy).expect(201);
    expect(res.body.url).toMatch(new RegExp(`^https://${o.proxy.replace(/\./g, '\\.')}/`));
    await follow(res.body.url, undefined, `${o.verified}:8443`).expect(200);
  });

  it('refuses an expired or unknown link (410 page), and a Host that is no site hostname (404 problem)', async () => {
    const o = await owner();
    const res = await issue(o.auth, o.site.id, o.verified).expect(201);
    const token = new URL(res.body.url).searchParams.get('token') as string;

    const unknown = await follow(`https://${o.verified}/_us/internal?token=nope`).expect(410);
    expect(unknown.text).toMatch(/expired or is not valid/);
    // Its pages are framed nowhere and sniffed as nothing else.
    expect(unknown.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(unknown.headers['x-frame-options']).toBe('DENY');
    expect(unknown.headers['x-content-type-options']).toBe('nosniff');
    expect(markLine(unknown)).toBeUndefined();
    await follow(`https://${o.verified}/_us/internal`).expect(410);

    const wrongHost = await follow(res.body.url, undefined, uniqueHost());
    expectProblem(wrongHost, 404);
    expect(markLine(wrongHost)).toBeUndefined();
    expectProblem(await follow(res.body.url, undefined, '127.0.0.1'), 404);

    // A hostname of another site is not this link's.
    const stranger = await owner();
    const foreign = await follow(res.body.url, undefined, stranger.verified).expect(404);
    expect(foreign.headers['content-type']).toMatch(/^text\/html/);

    // Ten minutes later: rewrite the stored link as expired.
    const key = `internal-link:${sha256(token)}`;
    const stored = JSON.parse((await t.deps.hot.get(key)) as string);
    await t.deps.hot.set(key, JSON.stringify({ ...stored, expiresAt: Date.now() - 1 }), 60);
    const expired = await follow(res.body.url).expect(410);
    expect(expired.text).toMatch(/expired/);

    expectProblem(await t.request.get('/_us/other').set('Host', o.verified), 404);
  });

  it('rotating the internal key ends earlier marks and links not yet followed', async () => {
    const o = await owner();
    const used = await issue(o.auth, o.site.id, o.verified).expect(201);
    const pending = await issue(o.auth, o.site.id, o.verified).expect(201);
    const page = await follow(used.body.url).expect(200);
    const mark = markLine(page)?.split(';')[0]?.slice('us_internal='.length) as string;
    expect(verifyInternalMark(await currentSite(o.site.id), mark)).toBe(true);

    const rotated = await t.request.post(`/v1/sites/${o.site.id}/internal-link/rotate`).set('Authorization', o.auth).expect(200);
    expect(rotated.body).toEqual({ rotated: true });
    const site = await currentSite(o.site.id);
    expect(verifyInternalMark(site, mark)).toBe(false);
    const stale = await follow(pending.body.url).expect(410);
    expect(stale.text).toMatch(/rotated/);

    // A new link marks with the new key.
    const fresh = await issue(o.auth, o.site.id, o.verified).expect(201);
    const freshPage = await follow(fresh.body.url, `us_internal=${mark}`).expect(200);
    const freshMark = markLine(freshPage)?.split(';')[0]?.slice('us_internal='.length) as string;
    expect(verifyInternalMark(site, freshMark)).toBe(true);
  });

  it("answers 404 for another workspace's site", async () => {
    const o = await owner();
    const stranger = await owner();
    expectProblem(await issue(stranger.auth, o.site.id, o.verified), 404);
    expectProblem(await t.request.post(`/v1/sites/${o.site.id}/internal-link/rotate`).set('Authorization', stranger.auth), 404);
    const site = await t.deps.orm.em.fork().findOneOrFail(Site, { id: o.site.id });
    expect(site.internalKeyEnc).toBe(o.site.internalKeyEnc);
  });
});
