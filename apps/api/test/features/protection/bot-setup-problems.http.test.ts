import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideFor, type GateSite, gateSite, postRecords } from '../../support/gate.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const HOST = 'setup-shop.example';
const WWW = `www.${HOST}`;
const EDGE = `edge.${HOST}`;
const CURL = 'curl/8.5.0';
const NOT_VERIFIED_WORDS =
  'Verify www.setup-shop.example to challenge visitors on it: until its TXT record is found, a visitor challenged there gets a page saying the check cannot bring them back, never the check.';

/**
 * GET /v1/sites/{id}/bot/decisions names the site's hostnames a check cannot return to as setup problems:
 * while the site challenges or blocks, and whenever a challenge there could not send its visitor to the check
 * (noted by the decide endpoint and from the edge's records). Hostnames not on the site are only counted.
 */
describe('setup problems in the decisions report', () => {
  let t: TestServer;
  let site: GateSite;
  const report = async (s: GateSite = site) =>
    (await t.request.get(`/v1/sites/${s.siteId}/bot/decisions`).set('Authorization', s.auth).expect(200)).body;

  beforeAll(async () => {
    t = await startTestServer();
    site = await gateSite(t, HOST, { mode: 'challenge' });
    await t.request
      .post(`/v1/sites/${site.siteId}/hostnames`)
      .set('Authorization', site.auth)
      .send({ hostname: WWW })
      .expect(201);
    // A proxy hostname the edge platform has not validated yet.
    const em = t.deps.orm.em.fork();
    em.create(SiteHostname, {
      site: site.siteId,
      hostname: EDGE,
      proxy: true,
      origin: 'https://origin.setup-shop.example',
      verifyToken: 'p'.repeat(64),
      edgeStatus: 'pending',
    });
    await em.flush();
  });
  afterAll(() => t?.close());

  it('names each hostname a check cannot return to while the site challenges, with the fix in words', async () => {
    const body = await report();
    expect(body.setupProblems).toEqual([
      { hostname: EDGE, problem: 'proxy-not-live', lastSeen: null, message: expect.stringContaining(`${EDGE} is not live`) },
      { hostname: WWW, problem: 'unverified', lastSeen: null, message: NOT_VERIFIED_WORDS },
    ]);
    expect(body.otherHostnames).toBe(0);
  });

  it('notes challenges that could not reach the check: registered hostnames named with when, others only counted', async () => {
    const started = Date.now();
    // Proxy mode: the decide endpoint answers a challenge without a check page, and notes it.
    const decided = await decideFor(t, site, { ip: '198.51.100.40', ua: CURL, path: '/', host: WWW }).expect(200);
    expect(decided.body.action).toBe('challenge');
    expect(decided.body.challengeUrl).toBeUndefined();
    await decideFor(t, site, { ip: '198.51.100.40', ua: CURL, path: '/', host: 'made-up-one.example' }).expect(200);
    // The edge: records of such challenges name the hostname apart; only challenges count.
    const reason = 'client software never runs page scripts: curl';
    await postRecords(t, site, [
      { status: 403, action: 'challenge', reason, ua: CURL, noReturnHost: 'MADE-UP-TWO.example' },
      { status: 403, action: 'challenge', reason, ua: CURL, noReturnHost: 'made-up-one.example' },
      { status: 200, action: 'allow', reason: 'x', noReturnHost: 'made-up-three.example' },
    ]).expect(202);

    await expect.poll(async () => (await report()).otherHostnames).toBe(2);
    const body = await report();
    expect(body.setupProblems.map((p: { hostname: string; lastSeen: string | null }) => [p.hostname, p.lastSeen])).toEqual([
      [EDGE, null],
      [WWW, expect.any(String)],
    ]);
    expect(Date.parse(body.setupProblems[1].lastSeen)).toBeGreaterThanOrEqual(started - 1000);
    expect(JSON.stringify(body)).not.toMatch(/made-up/i);
  });

  it('outside challenge and block only what was seen stays; a verified hostname is no problem any more; other sites see none', async () => {
    await site.setBot({ mode: 'log' });
    expect((await report()).setupProblems.map((p: { hostname: string }) => p.hostname)).toEqual([WWW]);
    await t.deps.orm.em.fork().nativeUpdate(SiteHostname, { site: site.siteId, hostname: WWW }, { verifiedAt: new Date() });
    expect((await report()).setupProblems).toEqual([]);

    const other = await gateSite(t, 'setup-other.example', { mode: 'block' });
    expect(await report(other)).toMatchObject({ setupProblems: [], otherHostnames: 0 });
  });
});
