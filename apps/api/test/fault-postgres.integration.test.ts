import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite } from './support/collect.ts';
import { type OwnPostgres, startOwnPostgres, storedCounts, streamReports, tally, waitUntilStored } from './support/faults.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/**
 * Issue 8, "test it by stopping the real thing": the server's own PostgreSQL is stopped while page
 * reports stream in, and started again. Collect keeps answering 202 from its caches and buffer; once
 * PostgreSQL is back, every acknowledged report is stored, once.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

describe('fault: PostgreSQL stops and starts while reports stream in', () => {
  let pg: OwnPostgres;
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    pg = await startOwnPostgres();
    t = await startTestServer({
      databaseUrl: pg.url,
      hot: 'memory',
      mail: 'outbox',
      env: { ...NO_BUDGETS, LOG_LEVEL: 'silent' },
      ingest: { backoffMs: 100, maxBackoffMs: 500 },
    });
    site = await collectSite(t, 'fault-postgres.example');
  });
  afterAll(async () => {
    await t?.close();
    await pg?.remove();
  });

  it('answers 202 throughout and stores every acknowledged report once PostgreSQL is back', async () => {
    const stream = streamReports({ baseUrl: () => t.url, site, loops: 4 });
    await sleep(1500);
    const down = Date.now();
    await pg.stop();
    const stopped = Date.now();
    await sleep(3000);
    const up = Date.now();
    await pg.start();
    await sleep(1500);
    const log = await stream.stop();

    expect(log.violations).toEqual([]);
    // While PostgreSQL was down, collect answered from its caches and buffer: 202, nothing else.
    const outage = tally(log, stopped, up);
    expect(Object.keys(outage)).toEqual(['202']);
    expect(outage['202']).toBeGreaterThan(50);
    expect(Object.keys(tally(log))).toEqual(['202']);
    expect(Object.keys(tally(log, down, stopped)).every((k) => k === '202')).toBe(true);

    const missing = await waitUntilStored(t.deps.orm, site.siteId, log.acked, 30_000);
    expect(missing).toEqual([]);
    const counts = await storedCounts(t.deps.orm, site.siteId);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(log.acked.length);
  });
});
