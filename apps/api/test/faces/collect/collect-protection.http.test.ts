import { randomUUID } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { behaviourCode, issuePass, verifyPass } from '@us/protection';
import { ProtectionConfig } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flaggedVisitors } from '../../../src/features/protection/behaviour.ts';
import { passKeyOf } from '../../../src/features/protection/pass-key.ts';
import { expectProblem } from '../../support/auth-helpers.ts';
import { BROWSER_UA } from '../../support/collect.ts';
import { type GateSite, gateSite, getConfig, postRecords } from '../../support/gate.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

/** GET /collect/protection: what a site's edges fetch to decide on their own (packages/protection/README.md). */
describe('GET /collect/protection', () => {
  let t: TestServer;
  let site: GateSite;

  beforeAll(async () => {
    t = await startTestServer();
    site = await gateSite(t, 'gate-config.example', {
      mode: 'challenge',
      bots: 'challenge',
      rules: [{ action: 'deny', label: 'No trainers', match: { category: 'ai-training' } }],
    });
  });
  afterAll(() => t.close());

  it('answers the config with a strong ETag, private for 60 s', async () => {
    const res = await getConfig(t, site).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const config = ProtectionConfig.parse(res.body);
    expect(config).toMatchObject({
      site: site.siteId,
      mode: 'challenge',
      bots: 'challenge',
      rules: [{ action: 'deny', label: 'No trainers', match: { category: 'ai-training' } }],
      challengeUrl: t.deps.urls.challenge,
      returnHosts: ['gate-config.example'],
      maxAgeSeconds: 60,
      behaviour: { day: new Date().toISOString().slice(0, 10), flagged: {} },
    });
    expect(config.behaviour.dayKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The pass key is the site's own: a pass the service issues verifies with it at the edge.
    expect(config.passKey).toBe(await passKeyOf(t.deps, t.deps.orm.em.fork(), site.siteId));
    const pass = await issuePass(config.passKey, site.siteId, BROWSER_UA, '198.51.100.7');
    expect(await verifyPass(config.passKey, site.siteId, BROWSER_UA, '198.51.100.9', pass)).toBe(true);
  });

  it('answers 304 to If-None-Match with the current ETag (also weak, in a list, or *), 200 to an old one', async () => {
    const first = await getConfig(t, site).expect(200);
    const etag = first.headers.etag as string;
    for (const inm of [etag, `W/${etag}`, `"old", ${etag}`, '*']) {
      const res = await getConfig(t, site, { 'If-None-Match': inm }).expect(304);
      expect(res.headers.etag).toBe(etag);
      expect(res.text ?? '').toBe('');
    }
    await getConfig(t, site, { 'If-None-Match': '"something-else"' }).expect(200);
    await t.request.head('/collect/protection').set('x-svc-proxy', site.secret).expect(200);
  });

  it('a changed rule reaches the config at once (the ETag moves): edges see it within their 60 s', async () => {
    const before = await getConfig(t, site).expect(200);
    await site.setBot({ mode: 'log', bots: 'allow', rules: [{ action: 'challenge', match: { path: '/admin' } }] });
    // The collector looks at the sites' generation at most once a second.
    await expect.poll(async () => (await getConfig(t, site).expect(200)).body.mode).toBe('log');
    const after = await getConfig(t, site).expect(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body).toMatchObject({ mode: 'log', bots: 'allow', rules: [{ action: 'challenge', match: { path: '/admin' } }] });
    await getConfig(t, site, { 'If-None-Match': before.headers.etag as string }).expect(200);
  });

  it('returns checks only to verified hostnames and proxy hostnames the edge platform made active', async () => {
    const s = await gateSite(t, 'gate-hosts.example');
    const em = t.deps.orm.em.fork();
    const add = (hostname: string, fields: Partial<SiteHostname>) =>
      em.insert(SiteHostname, {
        site: s.siteId,
        hostname,
        verifyToken: 'b'.repeat(32),
        createdAt: new Date(),
        ...fields,
      } as never);
    await add('unverified.gate-hosts.example', {});
    await add('proxy-active.gate-hosts.example', { proxy: true, edgeStatus: 'active', verifiedAt: new Date() });
    await add('proxy-pending.gate-hosts.example', { proxy: true, edgeStatus: 'pending' });
    await add('proxy-moved.gate-hosts.example', { proxy: true, edgeStatus: 'moved', verifiedAt: new Date() });
    await s.setBot({ mode: 'challenge' }); // any change tells the collectors to look again
    await expect
      .poll(async () => (await getConfig(t, s).expect(200)).body.returnHosts)
      .toEqual(['gate-hosts.example', 'proxy-active.gate-hosts.example']);
  });

  it('lists today’s flagged visitors by their code, never an address or a user agent', async () => {
    const s = await gateSite(t, 'gate-flagged.example', { mode: 'challenge' });
    const ip = '198.51.100.23';
    // 31 pages in one minute: a burst.
    const res = await postRecords(
      t,
      s,
      Array.from({ length: 31 }, (_, i) => ({ path: `/p${i}`, ip, ua: BROWSER_UA })),
    ).expect(202);
    expect(res.body.accepted).toBe(31);
    // The flag's write has a deadline and may land just after the answer: the config is asked for once it is there.
    await expect.poll(async () => Object.keys(await flaggedVisitors(t.deps.hot, s.siteId)).length).toBe(1);
    const config = (await getConfig(t, s).expect(200)).body as ProtectionConfig;
    const code = await behaviourCode(config.behaviour.dayKey, ip, BROWSER_UA);
    expect(config.behaviour.flagged).toEqual({ [code]: ['burst'] });
    const text = JSON.stringify(config);
    expect(text).not.toContain(ip);
    expect(text).not.toContain('Chrome/131');
  });

  // The fault: a batch sent again under its id (its answer lost or past the SDK's timeout) was stored once but fed
  // to behaviour memory twice: 16 pages a minute read as 32, a burst, and the person was challenged.
  it('feeds a batch sent again under its id to behaviour memory once', async () => {
    const s = await gateSite(t, 'gate-resent.example', { mode: 'challenge' });
    const ip = '198.51.100.24';
    const at = Date.now();
    const body = {
      k: s.publicKey,
      b: randomUUID(),
      records: Array.from({ length: 16 }, (_, i) => ({
        at: at + i,
        method: 'GET',
        path: `/p${i}`,
        status: 200,
        ms: 5,
        ip,
        ua: BROWSER_UA,
      })),
    };
    for (let i = 0; i < 2; i++) await t.request.post('/collect/requests').set('x-svc-proxy', s.secret).send(body).expect(202);
    // A third batch of its own: 16 more pages would now make a burst, so the count is waited for by it.
    await postRecords(t, s, [{ path: '/other', ip: '198.51.100.25', ua: BROWSER_UA }]).expect(202);
    await t.deps.ingest.flushNow();
    expect(Object.keys(await flaggedVisitors(t.deps.hot, s.siteId))).toEqual([]);
  });

  it('refuses a missing, unknown or other site’s secret with 401 before anything else', async () => {
    expectProblem(await t.request.get('/collect/protection'), 401);
    expectProblem(await getConfig(t, { secret: 'sk_live_unknownunknownunknownunknown1' }), 401);
    expectProblem(await getConfig(t, { secret: site.publicKey }), 401);
  });

  it('answers 405 to other methods', async () => {
    const res = await t.request.post('/collect/protection').set('x-svc-proxy', site.secret).send({});
    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 405, code: 'validation', title: 'Use GET or HEAD for this path' });
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});
