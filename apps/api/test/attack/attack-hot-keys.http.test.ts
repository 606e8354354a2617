import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSite, postReport } from '../support/collect.ts';
import { type OwnRedis, startOwnRedis } from '../support/faults.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const sha256 = (text: string, encoding: 'hex' | 'base64url') => createHash('sha256').update(text).digest(encoding);

/**
 * Someone with a copy of Redis's append-only file (a backup, a disk) reads client addresses out of the hot state's
 * keys. The defect: the keys held an unkeyed SHA-256 of each address (sign-in throttles, collect budgets, check
 * budgets), and hashing all four billion IPv4 addresses reads them back in minutes. Now each is tagged with a key
 * derived from APP_SECRET.
 */
describe("attack: client addresses read back from Redis's keys", () => {
  let redis: OwnRedis;
  let t: TestServer;
  const prefix = `us:test-${randomUUID()}:`;
  beforeAll(async () => {
    redis = await startOwnRedis();
    t = await startTestServer({ redis: redis.url, hotPrefix: prefix, env: { TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.remove();
  });

  it('keeps no address, nor any plain hash of it, in a key', async () => {
    const ip = '198.51.100.23';
    const site = await collectSite(t, 'hot-keys.example');
    await postReport(t, site, { ip }).expect(202);
    await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', ip)
      .send({ email: 'nobody@example.com', password: 'x' })
      .expect(401);
    await t.request.post('/v1/auth/signup').set('X-Forwarded-For', ip).send({ email: 'x', password: 'x' });
    const client = new Redis(redis.url);
    try {
      const keys = (await client.keys(`${prefix}*`)).map((k) => k.slice(prefix.length));
      // What the budgets and throttles counted for this address is there…
      expect(keys.some((k) => k.startsWith('collect:address:'))).toBe(true);
      expect(keys.some((k) => k.startsWith('login-fail:ip:'))).toBe(true);
      // …under names that no hash of the address alone gives.
      const plain = [ip, `address\n${ip}`].flatMap((s) => [sha256(s, 'hex'), sha256(s, 'base64url').slice(0, 16)]);
      for (const key of keys) {
        expect(key).not.toContain(ip);
        for (const h of plain) expect(key, key).not.toContain(h);
      }
    } finally {
      client.disconnect();
    }
  });
});
