import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../src/core/env.ts';
import { expectProblem, sleepsDuring, uniqueIp } from '../support/auth-helpers.ts';
import { createUser, startTestServer, type TestServer, uniqueEmail } from '../support/server.ts';
import { createSite } from '../support/sites.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 xff-test';
const PUBLIC_IP = '203.0.113.50';

/** A site whose internal network is 10.0.0.0/8, with one hostname and its public key. */
async function internalNetworkSite(t: TestServer) {
  const { workspace } = await createUser(t.deps);
  const em = t.deps.orm.em.fork();
  const host = `www.x${randomBytes(5).toString('hex')}.example.test`;
  const { site, publicKey } = await createSite(em, {
    workspace: workspace.id,
    name: 'Office site',
    settings: { internalNetworks: ['10.0.0.0/8'] },
  });
  em.create(SiteHostname, { site, hostname: host, verifyToken: 'a'.repeat(32) });
  await em.flush();
  const pk = publicKey;
  return { siteId: site.id, host, pk };
}

/** Sends one page report with the given X-Forwarded-For and answers the lane its stored row got. */
async function laneOfReport(t: TestServer, s: { siteId: string; host: string; pk: string }, forwardedFor: string) {
  const id = randomBytes(8).toString('hex');
  const body = { t: 'pv', k: s.pk, u: `https://${s.host}/`, id, r: '', w: 1280, l: 'en', z: 'UTC', n: 1 };
  await t.request
    .post('/collect')
    .set('Content-Type', 'text/plain')
    .set('Origin', `https://${s.host}`)
    .set('User-Agent', UA)
    .set('X-Forwarded-For', forwardedFor)
    .send(JSON.stringify(body))
    .expect(202);
  await t.deps.ingest.flushNow();
  const rows = (await t.deps.orm.em
    .fork()
    .execute('select lane from pageviews where site_id = ? and pageview_id = ?', [s.siteId, id])) as { lane: string }[];
  expect(rows).toHaveLength(1);
  return rows[0]?.lane;
}

/**
 * Behind a reverse proxy the client writes the left of X-Forwarded-For and each proxy appends what it
 * saw: only the entries the trusted proxies added count (TRUST_PROXY_HOPS from the right).
 */
describe('attack: a forged X-Forwarded-For', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  it('rotating the left-most entries does not escape the sign-in slowdown of the address the proxy saw', async () => {
    const seenByProxy = uniqueIp();
    const delays: number[][] = [];
    for (let i = 0; i < 5; i++) {
      delays.push(
        await sleepsDuring(t, async () =>
          expectProblem(
            await t.request
              .post('/v1/auth/login')
              .set('X-Forwarded-For', `${uniqueIp()}, ${seenByProxy}`)
              .send({ email: uniqueEmail('xff'), password: 'not-the-password-at-all' }),
            401,
          ),
        ),
      );
    }
    expect(delays).toEqual([[], [], [], [500], [1000]]);
  });

  it('a left-most entry inside the site’s internal network does not make a report internal', async () => {
    const site = await internalNetworkSite(t);
    expect(await laneOfReport(t, site, `10.9.8.7, ${PUBLIC_IP}`)).toBe('human');
    // The address the proxy saw is what counts: from inside the network the report is internal.
    expect(await laneOfReport(t, site, `${PUBLIC_IP}, 10.9.8.7`)).toBe('internal');
  });

  describe('with TRUST_PROXY_HOPS=2 (a CDN in front of the proxy)', () => {
    let two: TestServer;
    beforeAll(async () => {
      two = await startTestServer({ env: { TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '2' } });
    });
    afterAll(() => two.close());

    it('takes the address the outer proxy saw, not the client’s own claim', async () => {
      const site = await internalNetworkSite(two);
      expect(await laneOfReport(two, site, `10.1.1.1, ${PUBLIC_IP}, 10.2.2.2`)).toBe('human');
      expect(await laneOfReport(two, site, `${PUBLIC_IP}, 10.1.1.1, 198.51.100.9`)).toBe('internal');
    });
  });

  it('TRUST_PROXY_HOPS is a whole number from 1 to 10, 1 when unset', () => {
    expect(parseEnv({}).TRUST_PROXY_HOPS).toBe(1);
    expect(parseEnv({ TRUST_PROXY_HOPS: '3' }).TRUST_PROXY_HOPS).toBe(3);
    for (const bad of ['0', '11', '1.5', 'two']) {
      expect(() => parseEnv({ TRUST_PROXY_HOPS: bad })).toThrow(/TRUST_PROXY_HOPS/);
    }
  });
});
