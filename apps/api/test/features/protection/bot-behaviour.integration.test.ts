import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEHAVIOUR, flaggedVisitors, visitorSigns } from '../../../src/features/protection/behaviour.ts';
import { failedChecks, noteFailedCheck } from '../../../src/features/protection/failed-checks.ts';
import { memoryKey } from '../../../src/features/protection/memory-families.ts';
import { visitorCodeOf } from '../../../src/features/protection/visitor-code.ts';
import { BROWSER_UA, postReport } from '../../support/collect.ts';
import { type GateSite, gateSite, postRecords } from '../../support/gate.ts';
import { hotKinds, startTestServer, type TestServer } from '../../support/server.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';

/** Behaviour memory: signs per visitor code in the hot store, fed by the collector, read by the gate. */
describe('behaviour memory', () => {
  let t: TestServer;
  let n = 0;
  const nextIp = () => `198.51.100.${++n}`;
  const pages = (count: number, ip: string, ua = BROWSER_UA, extra: Record<string, unknown> = {}) =>
    Array.from({ length: count }, (_, i) => ({ path: `/page-${i}`, ip, ua, ...extra }));
  const signsOf = async (s: GateSite, ip: string, ua = BROWSER_UA) =>
    visitorSigns(t.deps, s.siteId, await visitorCodeOf(t.deps.hot, s.siteId, ip, ua), 1000);

  beforeAll(async () => {
    // In-process hot state, so the test can read every key and value it holds.
    t = await startTestServer({ hot: 'memory', env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  it('burst: more than 30 pages in a minute, or more than 600 requests; the pace of a person is no sign', async () => {
    const s = await gateSite(t, 'bm-burst.example');
    const fast = nextIp();
    await postRecords(t, s, pages(31, fast)).expect(202);
    expect(await signsOf(s, fast)).toEqual(['burst']);

    const assets = nextIp();
    // Both batches in one minute, as the edge stamps them: counted per minute, they would otherwise fall
    // into two minutes whenever the test runs across a minute's end.
    const at = Date.now();
    await postRecords(
      t,
      s,
      Array.from({ length: 500 }, (_, i) => ({ path: `/img/${i}.png`, ip: assets, ua: BROWSER_UA, at })),
    ).expect(202);
    expect(await signsOf(s, assets)).toEqual([]);
    await postRecords(
      t,
      s,
      Array.from({ length: 101 }, (_, i) => ({ path: `/css/${i}.css`, ip: assets, ua: BROWSER_UA, at })),
    ).expect(202);
    expect(await signsOf(s, assets)).toEqual(['burst']);

    const person = nextIp();
    await postRecords(t, s, pages(30, person)).expect(202);
    expect(await signsOf(s, person)).toEqual([]);
  });

  it('no-script: 5 pages and no page-script report, only on a site whose script reports', async () => {
    const s = await gateSite(t, 'bm-script.example');
    const before = nextIp();
    await postRecords(t, s, pages(5, before)).expect(202);
    expect(await signsOf(s, before)).toEqual([]); // no script has reported on this site yet

    const reader = nextIp();
    await postReport(t, s, { ip: reader }).expect(202);
    await postRecords(t, s, pages(6, reader)).expect(202);
    expect(await signsOf(s, reader)).toEqual([]);

    const scraper = nextIp();
    await postRecords(t, s, pages(4, scraper)).expect(202);
    expect(await signsOf(s, scraper)).toEqual([]);
    // Assets and API calls are no pages; the sender's html flag wins over the path.
    await postRecords(t, s, [
      { path: '/app.js', ip: scraper, ua: BROWSER_UA },
      { path: '/api/items', ip: scraper, ua: BROWSER_UA, html: false },
      { path: '/login', method: 'POST', ip: scraper, ua: BROWSER_UA },
    ]).expect(202);
    expect(await signsOf(s, scraper)).toEqual([]);
    await postRecords(t, s, [{ path: '/docs/page.html', ip: scraper, ua: BROWSER_UA }]).expect(202);
    expect(await signsOf(s, scraper)).toEqual(['no-script']);
    // The same address with another browser is another visitor.
    expect(await signsOf(s, scraper, FIREFOX)).toEqual([]);
  });

  it('tls-mismatch: a modern browser’s user agent over old TLS or a client hello unlike a browser’s', async () => {
    const s = await gateSite(t, 'bm-tls.example');
    const [old, lib, honest, fine] = [nextIp(), nextIp(), nextIp(), nextIp()];
    await postRecords(t, s, [
      { ip: old, ua: BROWSER_UA, tls: 'TLSv1.0' },
      { ip: lib, ua: FIREFOX, tls: 'TLSv1.3', tlsClass: 'non-browser' },
      { ip: honest, ua: 'curl/8.5.0', tls: 'TLSv1.0' },
      { ip: fine, ua: BROWSER_UA, tls: 'TLSv1.3', tlsClass: 'modern' },
    ]).expect(202);
    expect(await signsOf(s, old)).toEqual(['tls-mismatch']);
    expect(await signsOf(s, lib, FIREFOX)).toEqual(['tls-mismatch']);
    expect(await signsOf(s, honest, 'curl/8.5.0')).toEqual([]);
    expect(await signsOf(s, fine)).toEqual([]);
  });

  it('failed-check: noted by the check page, read by the gate, listed with the visitor’s next request', async () => {
    const s = await gateSite(t, 'bm-failed.example');
    const ip = nextIp();
    const code = await visitorCodeOf(t.deps.hot, s.siteId, ip, BROWSER_UA);
    await noteFailedCheck(t.deps, s.siteId, ip, BROWSER_UA);
    await noteFailedCheck(t.deps, s.siteId, ip, BROWSER_UA);
    expect(await failedChecks(t.deps, s.siteId, code)).toBe(2);
    expect(await signsOf(s, ip)).toEqual(['failed-check']);
    expect(await flaggedVisitors(t.deps.hot, s.siteId)).toEqual({});
    await postRecords(t, s, [{ ip, ua: BROWSER_UA }, ...pages(31, ip)]).expect(202);
    expect(await flaggedVisitors(t.deps.hot, s.siteId)).toEqual({ [code]: ['burst', 'failed-check'] });
  });

  it('is kept 24 hours after the visitor’s last request, sliding, and holds no address or user agent', async () => {
    const s = await gateSite(t, 'bm-ttl.example');
    const ip = '203.0.113.199';
    await postRecords(t, s, pages(31, ip, FIREFOX, { tls: 'TLSv1.1' })).expect(202);
    const code = await visitorCodeOf(t.deps.hot, s.siteId, ip, FIREFOX);
    const ttl = await t.deps.hot.ttl(memoryKey(s.siteId, code));
    expect(ttl).toBeGreaterThan(BEHAVIOUR.memorySeconds - 5);
    expect(ttl).toBeLessThanOrEqual(BEHAVIOUR.memorySeconds);
    expect(await flaggedVisitors(t.deps.hot, s.siteId)).toEqual({ [code]: ['burst', 'tls-mismatch'] });

    // The in-process store's own maps (private: read here only to prove what it holds).
    const store = t.deps.hot as unknown as { map: Map<string, unknown>; recent: Map<string, unknown> };
    const everything = JSON.stringify([
      [...store.map].map(([k, v]) => [k, v, [...((v as { fields?: Map<string, number> }).fields ?? [])]]),
      [...store.recent].map(([k, v]) => [k, [...(v as { members: Map<string, unknown> }).members]]),
    ]);
    expect(everything).toContain(code);
    for (const secret of [ip, '203.0.113', FIREFOX, 'Firefox/128']) expect(everything).not.toContain(secret);
  });

  it('feeds nothing for declared bots, the team’s own addresses, sites with protection off, or old records', async () => {
    const s = await gateSite(t, 'bm-none.example');
    const bot = nextIp();
    await postRecords(t, s, pages(40, bot, GPTBOT)).expect(202);
    expect(await signsOf(s, bot, GPTBOT)).toEqual([]);
    const old = nextIp();
    await postRecords(t, s, pages(40, old, BROWSER_UA, { at: Date.now() - 3_600_000 })).expect(202);
    expect(await signsOf(s, old)).toEqual([]);
    const off = await gateSite(t, 'bm-off.example', { mode: 'off' });
    const quiet = nextIp();
    await postRecords(t, off, pages(40, quiet)).expect(202);
    expect(await signsOf(off, quiet)).toEqual([]);
    expect(await flaggedVisitors(t.deps.hot, s.siteId)).toEqual({});
  });
});

/**
 * Only a store over the network can stop answering (the in-process one answers at once, so its calls race
 * no deadline: `hotAnswer`). So this runs on Redis, whose answers to the behaviour calls never come.
 */
describe.runIf(hotKinds().includes('redis'))('behaviour memory on a shared store', () => {
  let t: TestServer;
  let n = 0;
  const nextIp = () => `198.51.101.${++n}`;
  const pages = (count: number, ip: string) =>
    Array.from({ length: count }, (_, i) => ({ path: `/page-${i}`, ip, ua: BROWSER_UA }));
  const signsOf = async (s: GateSite, ip: string) =>
    visitorSigns(t.deps, s.siteId, await visitorCodeOf(t.deps.hot, s.siteId, ip, BROWSER_UA), 1000);

  beforeAll(async () => {
    t = await startTestServer({ hot: 'redis', env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  it('fails open: a Redis that never answers holds no batch or report up, and every record is stored', async () => {
    const s = await gateSite(t, 'bm-stuck.example');
    const hot = t.deps.hot;
    const original = { boundedUpdate: hot.boundedUpdate, hgetall: hot.hgetall };
    hot.boundedUpdate = () => new Promise(() => {});
    hot.hgetall = () => new Promise(() => {});
    try {
      // Without the budget these would wait for Redis forever: each must answer at all (the 10 s guard only
      // turns a hang into a named failure; it is no measure of speed, which a loaded machine would break).
      const answered = { response: 10_000, deadline: 10_000 };
      await postRecords(t, s, pages(40, nextIp())).timeout(answered).expect(202);
      await postReport(t, s, { ip: nextIp() }).timeout(answered).expect(202);
      expect(await signsOf(s, nextIp())).toEqual([]);
    } finally {
      hot.boundedUpdate = original.boundedUpdate;
      hot.hgetall = original.hgetall;
    }
    await t.deps.ingest.flushNow();
    const rows = await t.deps.orm.em.fork().execute('select count(*)::int as n from requests where site_id = ?', [s.siteId]);
    expect(rows[0]?.n).toBe(40);
  });
});
