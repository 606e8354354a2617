import { randomBytes, randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { flaggedVisitors, visitorSigns } from '../../src/features/protection/behaviour.ts';
import { memoryKey } from '../../src/features/protection/memory-families.ts';
import { visitorCodeOf } from '../../src/features/protection/visitor-code.ts';
import { BROWSER_UA } from '../support/collect.ts';
import { decideFor, type GateSite, gateSite, getConfig, postRecords } from '../support/gate.ts';
import { hotKinds, startTestServer, type TestServer } from '../support/server.ts';

/** The bound under test, small so that a few thousand made-up visitors are a flood. */
const PER_SITE = 50;
const FLOOD_BATCHES = 6;
const BATCH = 500;

/**
 * Behaviour memory holds one entry per address and user agent. One client, through a site's edge, sends
 * batches of requests each from another made-up address and user agent (an IPv6 range and a user-agent
 * generator are all it takes), most over old TLS so each would be flagged. Memory stays within its bound
 * per site (`BEHAVIOUR_VISITORS_PER_SITE`, small here), the site's real busy visitor keeps its signs (for
 * the decide endpoint and in the edges' config), and another site's visitors are untouched.
 */
describe.each(hotKinds({ cluster: true }))('attack: a flood of made-up visitors against behaviour memory (%s)', (kind) => {
  let t: TestServer;
  let redis: Redis | Cluster | undefined;
  const prefix = `us:test-flood-${randomUUID()}:`;
  let target: GateSite;
  let bystander: GateSite;

  /** Every hot-store key that names the site (visitor hashes, indexes, lists), as the store holds them. */
  async function keysOf(siteId: string): Promise<string[]> {
    if (kind === 'memory') {
      const store = t.deps.hot as unknown as { map: Map<string, unknown> };
      return [...store.map.keys()].filter((k) => k.includes(siteId));
    }
    // A cluster holds each key on one master: every master is scanned (replicas hold copies, maybe behind).
    const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis as Redis];
    const found: string[] = [];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*${siteId}*`, 'COUNT', 1000);
        cursor = next;
        found.push(...keys.map((k) => k.slice(prefix.length)));
      } while (cursor !== '0');
    }
    return found;
  }
  const visitorHashes = async (siteId: string) => (await keysOf(siteId)).filter((k) => k.startsWith(memoryKey(siteId, '')));
  const signsOf = async (s: GateSite, ip: string, ua = BROWSER_UA) =>
    visitorSigns(t.deps, s.siteId, await visitorCodeOf(t.deps.hot, s.siteId, ip, ua), 1000);
  const pages = (count: number, ip: string, extra: Record<string, unknown> = {}) =>
    Array.from({ length: count }, (_, i) => ({ path: `/p/${i}`, ip, ua: BROWSER_UA, ...extra }));

  beforeAll(async () => {
    t = await startTestServer({
      hot: kind,
      hotPrefix: prefix,
      env: { TRUST_PROXY: 'true', BEHAVIOUR_VISITORS_PER_SITE: String(PER_SITE) },
    });
    if (kind === 'redis') redis = new Redis(inject('redisUrl') as string);
    if (kind === 'redis-cluster') {
      redis = new Cluster(inject('redisClusterNodes') as string[]);
      await redis.ping(); // connected: its masters are known
    }
    target = await gateSite(t, 'flood-target.example', { mode: 'challenge' });
    bystander = await gateSite(t, 'flood-bystander.example', { mode: 'challenge' });
  });
  afterAll(async () => {
    await redis?.quit();
    await t?.close();
  });

  it('keeps memory within its bound, the busy visitor’s signs, and the other site’s visitors', async () => {
    // Before: a real busy visitor of the target bursts; the bystander has a busy visitor and ten flagged ones.
    const busy = '192.0.2.10';
    const at = Date.now();
    await postRecords(t, target, pages(40, busy, { at })).expect(202);
    await postRecords(t, bystander, pages(40, busy, { at })).expect(202);
    const theirs = Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`);
    await postRecords(
      t,
      bystander,
      theirs.map((ip) => ({ path: '/', ip, ua: BROWSER_UA, tls: 'TLSv1.0' })),
    ).expect(202);
    await expect.poll(() => signsOf(target, busy)).toEqual(['burst']);
    await expect.poll(() => signsOf(bystander, theirs[9] as string)).toEqual(['tls-mismatch']);
    const bystanderBefore = await flaggedVisitors(t.deps.hot, bystander.siteId);
    expect(Object.keys(bystanderBefore)).toHaveLength(11);

    // The flood: every record another made-up address and user agent, over TLS 1.0 (each one flagged if kept).
    for (let b = 0; b < FLOOD_BATCHES; b++) {
      const records = Array.from({ length: BATCH }, (_, i) => ({
        path: `/x/${i}`,
        ip: `2001:db8:${b.toString(16)}:${i.toString(16)}::${randomBytes(2).toString('hex')}`,
        ua: BROWSER_UA.replace('131.0.0.0', `131.0.${b}.${i}`),
        tls: 'TLSv1.0',
      }));
      await postRecords(t, target, records).expect(202);
    }
    // The flood reached memory (it is full) and memory stayed within its bound, at any moment.
    await expect.poll(async () => (await visitorHashes(target.siteId)).length, { timeout: 10_000 }).toBe(PER_SITE);
    const keys = await keysOf(target.siteId);
    // Besides the visitors' hashes: the day's index and flagged list (two keys each at most) and the script mark.
    expect(keys.length).toBeLessThanOrEqual(PER_SITE + 6);
    const flagged = await flaggedVisitors(t.deps.hot, target.siteId);
    expect(Object.keys(flagged).length).toBeLessThanOrEqual(PER_SITE);

    // The busy visitor keeps its signs: for the decide endpoint, and in the edges' list.
    expect(await signsOf(target, busy)).toEqual(['burst']);
    const code = await visitorCodeOf(t.deps.hot, target.siteId, busy, BROWSER_UA);
    expect(flagged[code]).toEqual(['burst']);
    const config = await getConfig(t, target).expect(200);
    expect(config.body.behaviour.flagged[code]).toEqual(['burst']);
    const decided = await decideFor(t, target, { ip: busy, ua: BROWSER_UA, path: '/', host: target.hostname }).expect(200);
    expect(decided.body.signals).toEqual(['burst']);

    // The bystander site: every visitor and sign as before, and its traffic still decided and counted.
    expect(await flaggedVisitors(t.deps.hot, bystander.siteId)).toEqual(bystanderBefore);
    expect(await signsOf(bystander, busy)).toEqual(['burst']);
    for (const ip of theirs) expect(await signsOf(bystander, ip)).toEqual(['tls-mismatch']);
    const asked = await decideFor(t, bystander, { ip: '198.51.100.9', ua: BROWSER_UA, path: '/', host: bystander.hostname });
    expect(asked.body).toMatchObject({ action: 'allow', reason: 'browser: no sign of automation' });
    await postRecords(t, bystander, [{ path: '/after', ip: '198.51.100.9', ua: BROWSER_UA }]).expect(202);
    await t.deps.ingest.flushNow();
    const em = t.deps.orm.em.fork();
    const count = async (siteId: string) =>
      (await em.execute('select count(*)::int as n from requests where site_id = ?', [siteId]))[0]?.n;
    expect(await count(bystander.siteId)).toBe(40 + 10 + 1);
    // Every record of the flood is stored all the same: memory is bounded, the records are not dropped.
    expect(await count(target.siteId)).toBe(40 + FLOOD_BATCHES * BATCH);
  });
});
