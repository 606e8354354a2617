import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEHAVIOUR, flaggedVisitors } from '../../src/features/protection/behaviour.ts';
import { flaggedKey } from '../../src/features/protection/memory-families.ts';
import { BROWSER_UA } from '../support/collect.ts';
import { type DnsStandIn, startDnsServer } from '../support/dns-server.ts';
import { decideFor, type GateSite, gateSite, getConfig, postRecords } from '../support/gate.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Strangers against the gate's routes: every limit counts before it checks, nothing answers 5xx. */
describe('attacks on the gate', () => {
  let t: TestServer;
  let dns: DnsStandIn;
  let site: GateSite;

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestServer({ hot: 'memory', env: { TRUST_PROXY: 'true', DNS_SERVERS: dns.address } });
    site = await gateSite(t, 'gate-attack.example', { mode: 'challenge' });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('guessing secrets on the config and decide routes is 401, then 429 past 60 lookups a minute from one address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 64; i++) {
      const path = i % 2 ? '/collect/protection' : '/collect/decide';
      const req = i % 2 ? t.request.get(path) : t.request.post(path).send({});
      const r = await req.set('x-svc-proxy', `sk_live_${randomBytes(16).toString('hex')}`).set('X-Forwarded-For', '203.0.113.66');
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 60).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(60).every((s) => s === 429)).toBe(true);
    // The site's own edge, from another address, is unaffected.
    await getConfig(t, site).set('X-Forwarded-For', '203.0.113.67').expect(200);
  });

  it('a public key is no secret, and another site’s secret does not open this site’s config', async () => {
    const other = await gateSite(t, 'gate-attack-other.example');
    const mine = await getConfig(t, site).expect(200);
    const theirs = await getConfig(t, other).expect(200);
    expect(theirs.body.site).toBe(other.siteId);
    expect(theirs.body.passKey).not.toBe(mine.body.passKey);
    expect(theirs.body.behaviour.dayKey).not.toBe(mine.body.behaviour.dayKey);
    expect((await getConfig(t, { secret: site.publicKey })).status).toBe(401);
  });

  it('hostile decide fields are refused or made harmless, never a 5xx', async () => {
    const base = { ip: '198.51.100.10', ua: BROWSER_UA, path: '/', host: site.hostname };
    const cases: Record<string, unknown>[] = [
      { pass: 'x'.repeat(129) },
      { ip: '::ffff:999.0.0.1' },
      { ip: 'fe80::1%eth0' },
      { path: `/${'a'.repeat(2048)}` },
      { host: 'a'.repeat(254) },
      { asn: 2 ** 40 },
      { asn: 1.5 },
      { tls: 'x'.repeat(33) },
      { verifiedBot: null },
      { ua: '\u0000\ud800' },
      { host: 'evil.example\r\nSet-Cookie: x=1', ua: 'curl/8' },
      { host: '[::1]:8080', ua: 'curl/8' },
      { pass: '99999999999.AAAAAAAAAAAAAAAAAAAAAA' },
      { path: '/robots.txt?x=1', ua: 'curl/8' },
    ];
    for (const change of cases) {
      const res = await decideFor(t, site, { ...base, ...change });
      expect([200, 400], `${JSON.stringify(change)} → ${res.status} ${res.text}`).toContain(res.status);
      if (res.status === 200) {
        expect(['allow', 'challenge', 'deny']).toContain(res.body.action);
        // A host that is no hostname of the site never gets a ticket, and is never echoed back.
        if (String(change.host ?? '').includes('evil')) {
          expect(res.body.challengeUrl).toBeUndefined();
          expect(res.text).not.toContain('Set-Cookie');
        }
      }
    }
  });

  it('a record’s reason past 1,024 characters costs only that record; an HTML-injection reason is stored as text', async () => {
    const res = await postRecords(t, site, [
      { path: '/ok', action: 'deny', reason: '<script>alert(1)</script>' },
      { path: '/too-long', action: 'deny', reason: 'x'.repeat(1025) },
    ]).expect(202);
    expect(res.body).toMatchObject({ accepted: 1, refused: 1, examples: [{ field: 'records[1].reason' }] });
  });

  it('the flagged list stays at 10,000 visitors, the most recently flagged', async () => {
    const siteId = `flood-${randomBytes(4).toString('hex')}`;
    const key = flaggedKey(siteId, new Date().toISOString().slice(0, 10));
    for (let i = 0; i < BEHAVIOUR.flagged + 50; i++) {
      await t.deps.hot.recentPut(key, `code${i}`, 'burst', BEHAVIOUR.flagged, BEHAVIOUR.memorySeconds);
    }
    const flagged = await flaggedVisitors(t.deps.hot, siteId);
    expect(Object.keys(flagged)).toHaveLength(BEHAVIOUR.flagged);
    expect(flagged[`code${BEHAVIOUR.flagged + 49}`]).toEqual(['burst']);
    expect(flagged.code0).toBeUndefined();
  });
});
