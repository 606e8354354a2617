import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { eventRow, listPartitions, type PageviewRow, pageLeaveRow, pageviewRow, pageviewRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AnalyticsRows, AnalyticsTable, RedisIngestBuffer } from '../../src/analytics/ingest/index.ts';
import { RECORD_WINDOW } from '../../src/faces/collect/intake.ts';
import { expectProblem } from '../support/auth-helpers.ts';
import { type CollectSite, collectSite, postReport } from '../support/collect.ts';
import { defaultHotKind, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Attacks on the shared data path, driven over HTTP against the running server the way a stranger
 * would: poison values, far timestamps, floods, oversized bodies, guessed secrets. After each, other
 * tenants' traffic must still be counted, and no answer is a 5xx.
 */
const pvid = () => randomBytes(8).toString('hex');

describe('attacks on the collect path', () => {
  let t: TestServer;
  let victim: CollectSite;
  let bystander: CollectSite;

  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    victim = await collectSite(t, 'victim.example');
    bystander = await collectSite(t, 'bystander.example');
  });
  afterAll(() => t.close());

  const report = (s: CollectSite, extra: Record<string, unknown> = {}, ip = '203.0.113.7') => postReport(t, s, { extra, ip });

  const stored = async (table: string, siteId: string) =>
    (await t.deps.orm.em.fork().execute(`select * from ${table} where site_id = ? order by at`, [siteId])) as Record<
      string,
      unknown
    >[];

  /** A normal pageview of the bystander, flushed: the proof that the path still works for everyone. */
  async function bystanderStillCounted() {
    const id = pvid();
    await report(bystander, { id }, '198.51.100.20').expect(202);
    await t.deps.ingest.flushNow();
    expect((await stored('pageviews', bystander.siteId)).some((r) => r.pageview_id === id)).toBe(true);
  }

  describe('poison values (NUL and other control characters, out-of-range numbers)', () => {
    it('a page report with NUL in its URL, language, time zone, page type and variant is stored cleaned', async () => {
      const id = pvid();
      await report(victim, {
        id,
        u: `https://${victim.hostname}/x?utm_source=%00news&utm_medium=%01mail&utm_campaign=a%00b`,
        l: 'en\u0000',
        z: 'Europe/\u0000Berlin',
        p: 'pri\u0000cing',
        x: { hero: 'b\u0000' },
      }).expect(202);
      await report(victim, { t: 'ev', id, e: 'sign\u0000up', el: 'top\u0000' }).expect(202);
      await bystanderStillCounted();
      const pv = (await stored('pageviews', victim.siteId)).find((r) => r.pageview_id === id);
      expect(pv).toMatchObject({
        utm_source: 'news',
        utm_medium: 'mail',
        utm_campaign: 'ab',
        language: 'en',
        timezone: 'Europe/Berlin',
        page_type: 'pricing',
      });
      const events = (await stored('events', victim.siteId)).filter((r) => r.pageview_id === id);
      expect(events.find((e) => e.kind === 'exposure')).toMatchObject({ experiment: 'hero', variant: 'b' });
      expect(events.find((e) => e.kind === 'event')).toMatchObject({ name: 'signup', label: 'top' });
    });

    it('an event value past a billion is dropped (the event still counts), sent or already buffered', async () => {
      const id = pvid();
      await report(victim, { id }).expect(202);
      await report(victim, { t: 'ev', id, e: 'purchase', ev: 1e300 }).expect(202);
      await report(victim, { t: 'ev', id, e: 'purchase', ev: 12.5 }).expect(202);
      // A row that skipped the door (buffered by an older version): its value would overflow the sums.
      const at = new Date();
      await t.deps.ingest.enqueue(
        'events',
        eventRow(victim.siteId, at, { pageviewId: id, visitor: 'v', name: 'purchase', value: -1e300 }),
      );
      await bystanderStillCounted();
      const values = (await stored('events', victim.siteId)).filter((r) => r.name === 'purchase').map((r) => r.value);
      expect(values.sort()).toEqual([12.5, null, null]);
    });

    it('proxy headers with an ASN past int and a three-letter country are dropped, not fatal', async () => {
      const id = pvid();
      await report(victim, { id })
        .set('x-svc-proxy', victim.secret)
        .set('x-svc-client-ip', '192.0.2.44')
        .set('x-svc-client-asn', '99999999999')
        .set('x-svc-client-country', 'XYZ')
        .expect(202);
      await bystanderStillCounted();
      const pv = (await stored('pageviews', victim.siteId)).find((r) => r.pageview_id === id);
      expect(pv?.asn).not.toBe(99999999999);
      expect(pv?.country === null || /^[A-Z]{2}$/.test(String(pv?.country))).toBe(true);
    });

    it('edge records with NUL in path, method and cache, and a huge ASN, are stored cleaned', async () => {
      const now = Date.now();
      const res = await edge(victim, [
        { at: now, method: 'G\u0000ET', path: '/a\u0000b', status: 200, ms: 3, cache: 'HIT\u0000', asn: 2 ** 40 },
      ]).expect(202);
      expect(res.body).toMatchObject({ accepted: 1, refused: 0 });
      await bystanderStillCounted();
      const row = (await stored('requests', victim.siteId)).find((r) => r.path === '/ab');
      expect(row).toMatchObject({ method: 'GET', cache: 'HIT', asn: null });
    });
  });

  describe('rows the database still refuses are set aside, never blocking the rest', () => {
    it('a row that cannot be stored goes to the dead letters with its reason; its batch and other tables drain', async () => {
      const good = pageviewRows(victim.siteId, new Date(), 5, (i) => ({ pageviewId: `good-${i}`, visitor: 'v' }));
      const bad = pageviewRow(victim.siteId, new Date('1800-01-01T00:00:00Z'), { pageviewId: 'bad', visitor: 'v' });
      await t.deps.ingest.enqueueMany('pageviews', [good[0], good[1], bad, good[2], good[3], good[4]] as PageviewRow[]);
      await t.deps.ingest.enqueue(
        'page_leaves',
        pageLeaveRow(victim.siteId, new Date(), { pageviewId: 'good-0', scrollDepth: 40, timeOnPageMs: 1000 }),
      );
      const res = await t.deps.ingest.flushNow();
      expect(res.error).toBeUndefined();
      // The background flush may have taken the rows first (seen on a loaded machine): count what was set aside.
      const setAside = (await t.deps.orm.em
        .fork()
        .execute(`select count(*)::int as n from ingest_dead_letters where site_id = ?`, [victim.siteId])) as { n: number }[];
      expect(setAside[0]?.n).toBe(1);
      const ids = (await stored('pageviews', victim.siteId)).map((r) => r.pageview_id);
      for (const g of good) expect(ids).toContain(g.pageviewId);
      expect(ids).not.toContain('bad');
      expect((await stored('page_leaves', victim.siteId)).some((r) => r.pageview_id === 'good-0')).toBe(true);
      const [letter] = (await t.deps.orm.em
        .fork()
        .execute(`select * from ingest_dead_letters where site_id = ? order by id desc limit 1`, [victim.siteId])) as {
        table_name: string;
        row_json: string;
        reason: string;
      }[];
      expect(letter?.table_name).toBe('pageviews');
      expect(JSON.parse(letter?.row_json ?? '{}').pageviewId).toBe('bad');
      expect(letter?.reason).toMatch(/at: outside the years/);
      const status = await t.request.get(`/v1/sites/${victim.siteId}/install-status`).set('Authorization', victim.auth);
      expect(status.body.collect.setAsideLast7Days).toBeGreaterThanOrEqual(1);
      await bystanderStillCounted();
    });

    it.runIf(defaultHotKind() === 'redis')('an unreadable entry in the Redis buffer is set aside too', async () => {
      const { Redis } = await import('ioredis');
      const redis = new Redis(inject('redisUrl') as string, { keyPrefix: 'us:' });
      const prefix = (t.deps.ingest.buffer as RedisIngestBuffer).prefix;
      await redis.lpush(`${prefix}:pageviews`, '{not json');
      await redis.quit();
      await t.deps.ingest.flushNow();
      const rows = (await t.deps.orm.em
        .fork()
        .execute(`select row_json from ingest_dead_letters where row_json like '%not json%'`)) as unknown[];
      expect(rows.length).toBeGreaterThanOrEqual(1);
      await bystanderStillCounted();
    });
  });

  describe('timestamps from anywhere', () => {
    it('records outside 48 hours back / 5 minutes ahead are refused and counted per reason; no partition is made', async () => {
      const now = Date.now();
      const before = (await listPartitions(t.deps.orm, 'requests')).length;
      const far = Array.from({ length: 300 }, (_, i) => ({
        at: now - (i + 3) * 86_400_000,
        method: 'GET',
        path: '/old',
        status: 200,
        ms: 1,
      }));
      const res = await edge(victim, [
        { at: now - 60_000, method: 'GET', path: '/fine', status: 200, ms: 1 },
        { at: now - RECORD_WINDOW.backMs - 60_000, method: 'GET', path: '/late', status: 200, ms: 1 },
        { at: now + 3600_000, method: 'GET', path: '/future', status: 200, ms: 1 },
        { at: 'yesterday', method: 'GET', path: '/bad', status: 200, ms: 1 },
        ...far,
      ]).expect(202);
      expect(res.body.accepted).toBe(1);
      expect(res.body.refused).toBe(303);
      expect(Object.values(res.body.reasons as Record<string, number>).sort((a, b) => a - b)).toEqual([1, 1, 301]);
      expect(res.body.examples[0]).toMatchObject({ field: 'records[1].at' });
      await t.deps.ingest.flushNow();
      expect((await listPartitions(t.deps.orm, 'requests')).length).toBe(before);
      const paths = (await stored('requests', victim.siteId)).map((r) => r.path);
      expect(paths).toContain('/fine');
      for (const p of ['/late', '/future', '/bad', '/old']) expect(paths).not.toContain(p);
    });
  });

  describe('page reports with made-up site keys', () => {
    it('from one address are 404 for 120 lookups a minute, then 429 without a lookup; known keys and other addresses go on', async () => {
      const madeUp = () => `pk_${randomBytes(13).toString('hex')}`;
      const statuses: number[] = [];
      for (let i = 0; i < 125; i++) {
        const r = await report({ publicKey: madeUp(), hostname: victim.hostname } as CollectSite, { id: pvid() }, '203.0.113.98');
        statuses.push(r.status);
      }
      expect(statuses.slice(0, 120).every((s) => s === 404)).toBe(true);
      expect(statuses.slice(120).every((s) => s === 429)).toBe(true);
      // The budget counts lookups, not reports: the same address's reports to a site this node knows still go in.
      const id = pvid();
      await report(victim, { id }, '203.0.113.98').expect(202);
      await bystanderStillCounted();
      expect((await stored('pageviews', victim.siteId)).some((r) => r.pageview_id === id)).toBe(true);
    });
  });

  describe('page reports with made-up secrets', () => {
    it('count against the address’s secret lookups: still counted (202), then no lookup, and a guess on the edge path is 429', async () => {
      // Each new secret on a page report cost a lookup of its own, past the budget an edge's guesses have.
      const ip = '203.0.113.96';
      const ids: string[] = [];
      for (let i = 0; i < 70; i++) {
        const id = pvid();
        ids.push(id);
        await report(victim, { id }, ip)
          .set('x-svc-proxy', `sk_live_${randomBytes(16).toString('hex')}`)
          .expect(202);
      }
      const guess = await t.request
        .post('/collect/requests')
        .set('x-svc-proxy', `sk_live_${randomBytes(16).toString('hex')}`)
        .set('X-Forwarded-For', ip)
        .send({ k: victim.publicKey, records: [] });
      expect(guess.status).toBe(429);
      await t.deps.ingest.flushNow();
      const rows = await stored('pageviews', victim.siteId);
      expect(ids.every((id) => rows.some((r) => r.pageview_id === id))).toBe(true);
      // The site's own edge, from another address, is unaffected.
      await edge(victim, [{ at: Date.now(), method: 'GET', path: '/after-secret-reports', status: 200, ms: 1 }]).expect(202);
      await bystanderStillCounted();
    });
  });

  describe('page reports with made-up Origin headers', () => {
    it('are 403 each, however many and however long, while the site’s own origin and other tenants go on', async () => {
      // More distinct origins than the node keeps hosts for (1,000), and long ones it never keeps.
      const origins = [
        ...Array.from({ length: 1_050 }, (_, i) => `https://made-up-${i}.example`),
        ...Array.from({ length: 20 }, (_, i) => `https://${'a'.repeat(60)}.${i}.${'b'.repeat(200)}.example`),
        'null',
        'not a url',
      ];
      const statuses = new Set<number>();
      for (const origin of origins)
        statuses.add((await report(victim, { id: pvid() }, '203.0.113.97').set('Origin', origin)).status);
      expect([...statuses]).toEqual([403]);
      // The site's own origin, in any letter case, still counts from the same address.
      const id = pvid();
      await report(victim, { id }, '203.0.113.97').set('Origin', `https://${victim.hostname.toUpperCase()}`).expect(202);
      await bystanderStillCounted();
      expect((await stored('pageviews', victim.siteId)).some((r) => r.pageview_id === id)).toBe(true);
    });
  });

  describe('edge batches: the secret is checked before the body is read', () => {
    it('a 1 MB batch without a valid secret is 401 and the connection stays usable', async () => {
      const res = await rawPost('/collect/requests', Buffer.alloc(1024 * 1024, 0x20), { 'x-svc-proxy': 'sk_live_nope' });
      expect(res.status).toBe(401);
      expect(res.next).toBe(200);
    });

    it('guessing secrets from one address is 429 after 60 lookups a minute', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 65; i++) {
        const guess = `sk_live_${randomBytes(16).toString('hex')}`;
        const r = await t.request
          .post('/collect/requests')
          .set('x-svc-proxy', guess)
          .set('X-Forwarded-For', '203.0.113.99')
          .send({ k: victim.publicKey, records: [] });
        statuses.push(r.status);
      }
      expect(statuses.slice(0, 60).every((s) => s === 401)).toBe(true);
      expect(statuses.slice(60).every((s) => s === 429)).toBe(true);
      // The site's own edge, from another address, is unaffected.
      await edge(victim, [{ at: Date.now(), method: 'GET', path: '/after-guesses', status: 200, ms: 1 }]).expect(202);
    });
  });

  async function rawPost(path: string, body: Buffer, headers: Record<string, string>) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(t.url);
    const send = (method: string, p: string, b?: Buffer, h: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, method, path: p, agent, headers: h }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(b);
      });
    try {
      const status = await send('POST', path, body, { 'content-type': 'application/json', ...headers });
      return { status, next: await send('GET', '/healthz') };
    } finally {
      agent.destroy();
    }
  }

  function edge(s: CollectSite, records: unknown[]) {
    return t.request
      .post('/collect/requests')
      .set('Content-Type', 'application/json')
      .set('x-svc-proxy', s.secret)
      .send({ k: s.publicKey, records });
  }
});

describe('floods: per-address and per-site budgets', () => {
  let t: TestServer;
  let victim: CollectSite;
  let bystander: CollectSite;

  beforeAll(async () => {
    t = await startTestServer({
      env: { TRUST_PROXY: 'true', COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '20', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '50' },
    });
    victim = await collectSite(t, 'flooded.example');
    bystander = await collectSite(t, 'calm.example');
  });
  afterAll(() => t.close());

  const send = (s: CollectSite, ip: string) => postReport(t, s, { ip });
  const count = async (siteId: string) =>
    Number(
      (
        (await t.deps.orm.em.fork().execute(`select count(*)::int as n from pageviews where site_id = ?`, [siteId])) as {
          n: number;
        }[]
      )[0]?.n,
    );

  it('one address inflating a site gets 202s but only its budget is stored; the drops show in install-status', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => send(victim, '203.0.113.50')));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    await t.deps.ingest.flushNow();
    expect(await count(victim.siteId)).toBe(20);
    const status = await t.request.get(`/v1/sites/${victim.siteId}/install-status`).set('Authorization', victim.auth).expect(200);
    expect(status.body.collect).toMatchObject({ droppedToday: 10, droppedByReason: { address: 10, site: 0 } });
  });

  it('many addresses flooding one site meet the site budget; another site is still counted in full', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => send(victim, `198.51.100.${i + 1}`)));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    for (let i = 0; i < 5; i++) await send(bystander, `192.0.2.${i + 1}`).expect(202);
    await t.deps.ingest.flushNow();
    // The site's budget (50) counts every report of the minute, the 30 of the first flood included:
    // 20 stored then, 20 more now.
    expect(await count(victim.siteId)).toBe(40);
    const status = await t.request.get(`/v1/sites/${victim.siteId}/install-status`).set('Authorization', victim.auth).expect(200);
    expect(status.body.collect.droppedByReason).toEqual({ address: 10, site: 40 });
    expect(await count(bystander.siteId)).toBe(5);
  });
});

describe('a full write buffer', () => {
  let t: TestServer;
  let site: CollectSite;
  let failing = true;

  beforeAll(async () => {
    t = await startTestServer({
      ingest: {
        maxBufferRows: 10,
        intervalMs: 60_000,
        // PostgreSQL "down": nothing leaves the buffer until it is back.
        insert: async <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) => {
          if (failing) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
          const { insertRows } = await import('@us/db');
          return insertRows(t.deps.orm, table, rows);
        },
      },
    });
    site = await collectSite(t, 'busy.example');
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After once full, never dropping what it acknowledged', async () => {
    const post = (id: string) => postReport(t, site, { extra: { id } });
    const acked: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = `acked${i}xx`;
      await post(id).expect(202);
      acked.push(id);
    }
    const full = await post('refused1');
    expectProblem(full, 503);
    expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);
    failing = false;
    await t.deps.ingest.flushNow();
    const ids = (
      (await t.deps.orm.em.fork().execute(`select pageview_id from pageviews where site_id = ?`, [site.siteId])) as {
        pageview_id: string;
      }[]
    ).map((r) => r.pageview_id);
    expect(ids.sort()).toEqual(acked.sort());
    await post('after1xx').expect(202);
  });
});
