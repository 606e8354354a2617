import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inAnyNetwork } from '../../../src/core/enrich/cidr.ts';
import { BROWSERS, SYSTEMS } from '../../../src/core/enrich/software.ts';
import { createKeyRow } from '../../../src/features/site-keys/keys.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 collect-test';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const PROXY_IP = '10.1.2.3';

describe('POST /collect and /collect/requests', () => {
  let t: TestServer;
  let siteId: string;
  let pk: string;
  let sk: string;
  let auth: string;
  const host = 'shop.example';
  const pvid = () => randomBytes(8).toString('hex');

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write'],
    });
    auth = `Bearer ${token}`;
    const em = t.deps.orm.em.fork();
    const { site, publicKey } = await createSite(em, {
      workspace: workspace.id,
      name: 'Shop',
      settings: { internalNetworks: ['10.0.0.0/8'] },
    });
    em.create(SiteHostname, { site, hostname: host, verifyToken: 'a'.repeat(32) });
    await em.flush();
    siteId = site.id;
    pk = publicKey;
    sk = createKeyRow(em, site.id, 'secret').value;
    await em.flush();
  });
  afterAll(() => t.close());

  const rows = (table: string) =>
    t.deps.orm.em.fork().execute(`select * from ${table} where site_id = ? order by at`, [siteId]) as Promise<
      Record<string, unknown>[]
    >;
  const pv = (extra: Record<string, unknown> = {}) => ({
    t: 'pv',
    k: pk,
    u: `https://${host}/pricing?utm_source=news&utm_medium=mail&utm_campaign=spring`,
    id: pvid(),
    r: 'https://www.google.com/search?q=x',
    w: 1280,
    l: 'en-GB',
    z: 'Europe/London',
    n: 1,
    ...extra,
  });
  const post = (body: unknown, ua = UA, path = '/collect') =>
    t.request
      .post(path)
      .set('Content-Type', 'text/plain')
      .set('Origin', `https://${host}`)
      .set('User-Agent', ua)
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  it('answers OPTIONS with permissive CORS', async () => {
    const res = await t.request.options('/collect').expect(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('records a pageview with path, utm, referrer host and device in the human lane', async () => {
    const body = pv();
    const res = await post(body).expect(202);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    await t.deps.ingest.flushNow();
    const got = (await rows('pageviews')).find((r) => r.pageview_id === body.id);
    expect(got).toMatchObject({
      path: '/pricing',
      utm_source: 'news',
      utm_medium: 'mail',
      utm_campaign: 'spring',
      referrer_host: 'www.google.com',
      device: 'desktop',
      lane: 'human',
      session_start: true,
    });
    const [s] = (await t.deps.orm.em.fork().execute('select last_seen_at from sites where id = ?', [siteId])) as {
      last_seen_at: Date | null;
    }[];
    expect(s?.last_seen_at).toBeTruthy();
    const status = await t.request.get(`/v1/sites/${siteId}/install-status`).set('Authorization', auth).expect(200);
    expect(status.body.installed).toBe(true);
  });

  it('records the browser and system (name and major version) from the user agent, the client hints preferred', async () => {
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
    const safari = pv();
    await post(safari, iphone).expect(202);
    // Brave says Chrome in its user agent and Brave in its brands; Windows 11 only in the platform version.
    const brave = pv();
    await post(brave)
      .set('Sec-CH-UA', '"Brave";v="131", "Chromium";v="131", "Not_A Brand";v="24"')
      .set('Sec-CH-UA-Platform', '"Windows"')
      .set('Sec-CH-UA-Platform-Version', '"15.0.0"')
      .expect(202);
    const event = { t: 'ev', k: pk, u: `https://${host}/pricing`, id: safari.id, e: 'signup' };
    await post(event, iphone).expect(202);
    await t.deps.ingest.flushNow();
    const software = (r: Record<string, unknown> | undefined) =>
      r && { browser: r.browser, browser_major: r.browser_major, os: r.os, os_major: r.os_major };
    const pageviews = await rows('pageviews');
    expect(software(pageviews.find((r) => r.pageview_id === safari.id))).toEqual({
      browser: 'Safari',
      browser_major: 18,
      os: 'iOS',
      os_major: 18,
    });
    expect(software(pageviews.find((r) => r.pageview_id === brave.id))).toEqual({
      browser: 'Brave',
      browser_major: 131,
      os: 'Windows',
      os_major: 11,
    });
    const events = await rows('events');
    expect(software(events.find((r) => r.pageview_id === safari.id && r.name === 'signup'))).toEqual({
      browser: 'Safari',
      browser_major: 18,
      os: 'iOS',
      os_major: 18,
    });
  });

  it('records nothing under Sec-GPC: 1', async () => {
    const body = pv();
    await post(body).set('Sec-GPC', '1').expect(204);
    await t.deps.ingest.flushNow();
    expect((await rows('pageviews')).some((r) => r.pageview_id === body.id)).toBe(false);
  });

  it('refuses a foreign hostname with 403 and records nothing', async () => {
    const body = pv({ u: 'https://evil.example/x' });
    const res = await post(body).expect(403);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.body.title ?? JSON.parse(res.text).title).toMatch(/not on this site's hostnames/);
    const body2 = pv();
    await post(body2).set('Origin', 'https://evil.example').expect(403);
    await t.deps.ingest.flushNow();
    const ids = (await rows('pageviews')).map((r) => r.pageview_id);
    expect(ids).not.toContain(body.id);
    expect(ids).not.toContain(body2.id);
  });

  it('answers malformed JSON and invalid reports with 400 problem and a field', async () => {
    const res = await post('{not json').expect(400);
    expect(JSON.parse(res.text)).toMatchObject({ status: 400, field: '(body)' });
    const res2 = await post(pv({ w: 'wide' })).expect(400);
    expect(JSON.parse(res2.text).field).toBeTruthy();
    await post('x'.repeat(17 * 1024)).expect(413);
  });

  it('answers an unknown key with 404', async () => {
    await post(pv({ k: `pk_${'z'.repeat(26)}` })).expect(404);
  });

  it('trusts proxy headers only with the site secret: internal network vs socket address', async () => {
    const a = pv();
    await post(a).set('x-svc-proxy', sk).set('x-svc-client-ip', PROXY_IP).expect(202);
    const b = pv();
    await post(b).set('x-svc-proxy', 'sk_live_wrongwrongwrongwrongwrongwrong12').set('x-svc-client-ip', PROXY_IP).expect(202);
    await t.deps.ingest.flushNow();
    const all = await rows('pageviews');
    expect(all.find((r) => r.pageview_id === a.id)?.lane).toBe('internal');
    expect(all.find((r) => r.pageview_id === b.id)?.lane).toBe('human');
  });

  it('puts Googlebot in the bot lane', async () => {
    const body = pv();
    await post(body, GOOGLEBOT).expect(202);
    await t.deps.ingest.flushNow();
    expect((await rows('pageviews')).find((r) => r.pageview_id === body.id)?.lane).toBe('bot');
  });

  it('records events and exposures', async () => {
    const body = pv({ x: { pricing: 'b' } });
    await post(body).expect(202);
    await post({ t: 'ev', k: pk, u: `https://${host}/pricing`, id: body.id, e: 'signup', el: 'top', ev: 3 }).expect(202);
    await post({ t: 'leave', k: pk, u: `https://${host}/pricing`, id: body.id, s: 50, d: 1000, i: 1 }).expect(202);
    await t.deps.ingest.flushNow();
    const evs = (await rows('events')).filter((r) => r.pageview_id === body.id);
    expect(evs.find((r) => r.kind === 'exposure')).toMatchObject({ experiment: 'pricing', variant: 'b' });
    expect(evs.find((r) => r.kind === 'event')).toMatchObject({ name: 'signup', label: 'top' });
    const leaves = (await rows('page_leaves')).filter((r) => r.pageview_id === body.id);
    expect(leaves).toHaveLength(1);
    expect(leaves[0]).toMatchObject({ scroll_depth: 50, time_on_page_ms: 1000, interacted: true, lane: 'human' });
  });

  it('takes request batches only with the site secret', async () => {
    const batch = {
      k: pk,
      records: [{ at: Date.now(), method: 'GET', path: '/req-test', status: 200, ms: 12, ip: PROXY_IP, ua: UA }],
    };
    await t.request
      .post('/collect/requests')
      .set('x-svc-proxy', 'sk_live_wrongwrongwrongwrongwrongwrong12')
      .send(batch)
      .expect(401);
    await t.request.post('/collect/requests').set('x-svc-proxy', sk).send(batch).expect(202);
    await t.deps.ingest.flushNow();
    const reqs = (await rows('requests')).filter((r) => r.path === '/req-test');
    expect(reqs).toHaveLength(1);
    expect(reqs[0]).toMatchObject({ kind: 'browser', lane: 'internal', status: 200 });
  });

  it('stores no IP address or user agent anywhere', async () => {
    // Every column of every table of the schema: no column meant for an address or a user agent.
    const cols = (await t.deps.orm.em
      .fork()
      .execute(`select table_name, column_name from information_schema.columns where table_schema = current_schema()`)) as {
      table_name: string;
      column_name: string;
    }[];
    expect(cols.length).toBeGreaterThan(50);
    for (const c of cols) expect(`${c.table_name}.${c.column_name}`).not.toMatch(/\.(ip|.*_ip|ip_addr.*|.*user_agent.*|ua)$/);
    // And no stored value of the analytics tables holds the addresses or the user agent used above.
    for (const table of ['pageviews', 'events', 'requests', 'page_leaves']) {
      const text = JSON.stringify(await rows(table));
      expect(text).not.toContain(PROXY_IP);
      expect(text).not.toContain(UA);
      expect(text).not.toContain('127.0.0.1');
    }
    // What is kept of the user agent: a browser and a system name of the short lists, and major versions.
    for (const table of ['pageviews', 'events']) {
      const kept = await rows(table);
      expect(kept.some((r) => r.browser === 'Chrome' && r.browser_major === 131 && r.os === 'Windows')).toBe(true);
      for (const r of kept) {
        expect([null, ...BROWSERS]).toContain(r.browser);
        expect([null, ...SYSTEMS]).toContain(r.os);
        for (const v of [r.browser_major, r.os_major])
          expect(v === null || (Number.isInteger(v) && (v as number) < 1000)).toBe(true);
      }
    }
  });

  it('matches IPv4 and IPv6 CIDR networks', () => {
    expect(inAnyNetwork(['10.0.0.0/8'], '10.1.2.3')).toBe(true);
    expect(inAnyNetwork(['10.0.0.0/8'], '11.1.2.3')).toBe(false);
    expect(inAnyNetwork(['10.0.0.0/8'], '::ffff:10.9.9.9')).toBe(true);
    expect(inAnyNetwork(['2001:db8::/32'], '2001:db8:1::5')).toBe(true);
    expect(inAnyNetwork(['2001:db8::/32'], '2001:db9::5')).toBe(false);
    expect(inAnyNetwork(['192.168.1.7'], '192.168.1.7')).toBe(true);
  });
});
