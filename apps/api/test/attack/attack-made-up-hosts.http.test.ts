import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RETURN } from '../../src/features/protection/no-return.ts';
import { BROWSER_UA } from '../support/collect.ts';
import { decideFor, type GateSite, gateSite, postRecords } from '../support/gate.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CURL = 'curl/8.5.0';
const NO_CHECK = '(no check: not a verified hostname of the site, so a check could not return there)';

/**
 * A stranger makes up Host headers by the hundred, through a proxy-mode server (each request decided by the
 * decide endpoint) and an edge (each challenge recorded with the hostname it could not return to). No made-up
 * Host turns a challenge into "allow"; the site's setup problems stay bounded and never show a made-up name;
 * the site's own hostname stays named; another site's traffic is still decided and counted.
 */
describe('attack: made-up Host headers', () => {
  let t: TestServer;
  let site: GateSite;
  let other: GateSite;
  const report = async (s: GateSite) =>
    (await t.request.get(`/v1/sites/${s.siteId}/bot/decisions`).query({ days: 1 }).set('Authorization', s.auth).expect(200)).body;

  beforeAll(async () => {
    t = await startTestServer();
    site = await gateSite(t, 'made-up-target.example', { mode: 'challenge' });
    await t.request
      .post(`/v1/sites/${site.siteId}/hostnames`)
      .set('Authorization', site.auth)
      .send({ hostname: 'www.made-up-target.example' })
      .expect(201);
    other = await gateSite(t, 'made-up-bystander.example', { mode: 'challenge' });
  });
  afterAll(() => t?.close());

  it('hundreds of made-up hostnames: each challenge stays one, the count stops at its cap, no name is shown, others are served', async () => {
    await decideFor(t, site, { ip: '198.51.100.60', ua: CURL, path: '/', host: 'www.made-up-target.example' }).expect(200);
    const hosts = Array.from({ length: NO_RETURN.cap + 50 }, (_, i) => `forged-${i}.stranger.example`);
    for (let i = 0; i < hosts.length; i += 25) {
      const answers = await Promise.all(
        hosts.slice(i, i + 25).map((host) => decideFor(t, site, { ip: '198.51.100.61', ua: CURL, path: '/', host }).expect(200)),
      );
      for (const a of answers) {
        expect(a.body).toMatchObject({
          action: 'challenge',
          reason: `client software never runs page scripts: curl ${NO_CHECK}`,
        });
        expect(a.body.challengeUrl).toBeUndefined();
      }
    }
    // And from an edge: full batches of records, each naming another made-up hostname.
    for (let b = 0; b < 3; b++) {
      const records = Array.from({ length: 500 }, (_, i) => ({
        status: 403,
        action: 'challenge',
        reason: `client software never runs page scripts: curl ${NO_CHECK}`,
        ua: CURL,
        noReturnHost: `edge-forged-${b}-${i}.stranger.example`,
      }));
      expect((await postRecords(t, site, records).expect(202)).body.accepted).toBe(500);
    }

    // Noted in the background: the count reaches its cap and stays there.
    await expect.poll(async () => (await report(site)).otherHostnames).toBe(NO_RETURN.cap);
    const body = await report(site);
    expect(body.otherHostnames).toBe(NO_RETURN.cap);
    expect(body.setupProblems.map((p: { hostname: string }) => p.hostname)).toEqual(['www.made-up-target.example']);
    expect(JSON.stringify(body)).not.toContain('stranger');

    // The bystander site: its visitors decided as ever, its records stored and counted, no problem of its own.
    const person = await decideFor(t, other, { ip: '198.51.100.70', ua: BROWSER_UA, path: '/', host: other.hostname }).expect(
      200,
    );
    expect(person.body).toMatchObject({ action: 'allow', reason: 'browser: no sign of automation' });
    const checked = await decideFor(t, other, { ip: '198.51.100.71', ua: CURL, path: '/', host: other.hostname }).expect(200);
    expect(checked.body.challengeUrl).toMatch(/\?t=/);
    await postRecords(t, other, [
      { ua: BROWSER_UA, action: 'allow', reason: 'browser: no sign of automation', risk: 0 },
      { status: 302, ua: CURL, action: 'challenge', reason: 'client software never runs page scripts: curl', risk: 50 },
    ]).expect(202);
    await t.deps.ingest.flushNow();
    expect(await report(other)).toMatchObject({
      totals: { allow: 1, challenge: 1, deny: 0, total: 2 },
      setupProblems: [],
      otherHostnames: 0,
    });
  });
});
