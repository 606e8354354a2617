import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrm } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite } from '../support/collect.ts';
import {
  answered,
  type OwnPostgres,
  type ServerProcess,
  spawnServer,
  startOwnPostgres,
  storedCounts,
  streamReports,
  tally,
  waitWhileStreaming,
} from '../support/faults.ts';
import { startTestServer } from '../support/server.ts';

/**
 * Issue 8, "test it by stopping the real thing": the real server process gets SIGTERM while its
 * PostgreSQL is unreachable. Its last flush fails, so it saves the rows it acknowledged to
 * DATA_DIR/ingest-spill and exits 0; started again (PostgreSQL back), it stores them before it listens
 * and removes the file.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

const files = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

describe('fault: SIGTERM while PostgreSQL is unreachable', () => {
  let pg: OwnPostgres;
  let site: CollectSite;
  const servers: ServerProcess[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-fault-spill-'));
  const spillDir = path.join(dataDir, 'ingest-spill');
  const env = () => ({ NODE_ENV: 'production', DATABASE_URL: pg.url, DATA_DIR: dataDir, LOG_LEVEL: 'info', ...NO_BUDGETS });

  beforeAll(async () => {
    pg = await startOwnPostgres();
    const t = await startTestServer({ databaseUrl: pg.url, hot: 'memory', mail: 'outbox' });
    site = await collectSite(t, 'fault-spill.example');
    await t.close();
  });
  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGKILL');
    await pg?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Two real server starts take about 10 s each on a loaded machine: the test gets 90 s instead of the default 30 s.
  it('saves what it could not store to disk, exits 0, and stores it at the next start before listening', async () => {
    const first = await spawnServer(env());
    servers.push(first);
    const stream = streamReports({ baseUrl: () => first.url, site, loops: 4, untilRefused: true });
    await waitWhileStreaming(stream, () => expect(stream.log.acked.length).toBeGreaterThan(20));
    await pg.stop();
    const down = Date.now();
    // Reports keep being answered while PostgreSQL is down: rows the server holds and cannot store.
    await waitWhileStreaming(stream, () => expect(answered(stream.log, 202, down)).toBeGreaterThan(20));
    const signalled = Date.now();
    first.proc.kill('SIGTERM');
    const exit = await first.exited;
    const ended = await Promise.race([stream.done.then(() => true), sleep(15_000).then(() => false)]);
    const log = await stream.stop();

    expect(exit, first.output()).toEqual({ code: 0, signal: null });
    expect(ended).toBe(true);
    expect(log.violations).toEqual([]);
    // PostgreSQL down: reports were still answered 202 (held in the buffer).
    const outage = tally(log, down, signalled);
    expect(Object.keys(outage)).toEqual(['202']);
    expect(outage['202']).toBeGreaterThan(20);
    for (const answer of Object.keys(tally(log, signalled))) expect(answer).toMatch(/^(202|503|no answer \(.+\))$/);
    expect(first.output()).toMatch(/rows not yet stored were saved to .*ingest-spill/);

    // What the first server could not store is on disk, one row a line.
    const spilled = files(spillDir);
    expect(spilled.length).toBe(1);
    const saved = readFileSync(path.join(spillDir, spilled[0] as string), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { table: string; row: { pageviewId?: string } });
    expect(saved.filter((s) => s.table === 'pageviews').length).toBeGreaterThan(20);

    await pg.start();
    const second = await spawnServer(env());
    servers.push(second);
    // Stored before it listened: no waiting for a flush.
    expect(files(spillDir)).toEqual([]);
    const orm = await createOrm(pg.url, { poolMax: 1 });
    try {
      const stored = await storedCounts(orm, site.siteId);
      expect(log.acked.filter((id) => !stored.has(id))).toEqual([]);
      expect([...stored.values()].filter((n) => n !== 1)).toEqual([]);
      for (const s of saved) if (s.table === 'pageviews') expect(stored.has(s.row.pageviewId as string)).toBe(true);
    } finally {
      await orm.close();
    }
    expect(second.output()).toMatch(/rows saved at the last shutdown were queued again and stored/);

    second.proc.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 90_000);

  // The fault: a second stop signal (Ctrl-C twice, a supervisor that signals again) ended the process at once, and
  // the rows it held, answered 202 and not yet stored, went with it.
  it('a second signal during the stop still saves what it holds, and the next start stores it', async () => {
    const first = await spawnServer(env());
    servers.push(first);
    const stream = streamReports({ baseUrl: () => first.url, site, loops: 4, untilRefused: true });
    await waitWhileStreaming(stream, () => expect(stream.log.acked.length).toBeGreaterThan(20));
    await pg.stop();
    const down = Date.now();
    await waitWhileStreaming(stream, () => expect(answered(stream.log, 202, down)).toBeGreaterThan(20));
    // A request still arriving holds the orderly stop (it lets requests in flight finish, up to its deadline). Its
    // headers must have been read first: a connection whose request has not begun is idle, and the stop closes it.
    // `Expect: 100-continue` makes the server say so (Node answers 100 once it has the headers).
    const { port } = new URL(first.url);
    const slow = connect(Number(port), '127.0.0.1');
    await new Promise<void>((r) => slow.once('connect', () => r()));
    const begun = new Promise<void>((r) => slow.on('data', (d) => String(d).startsWith('HTTP/1.1 100') && r()));
    slow.write(
      'POST /collect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n',
    );
    await begun;
    slow.write('{');
    first.proc.kill('SIGTERM');
    // A second signal within a second is the same stop delivered twice (a terminal signals the process group).
    await sleep(1500);
    expect(first.proc.exitCode).toBeNull();
    first.proc.kill('SIGTERM');
    const exit = await first.exited;
    slow.destroy();
    const log = await stream.stop();
    expect(exit, first.output()).toEqual({ code: 1, signal: null });
    expect(first.output()).toMatch(/rows not yet stored were saved to .*ingest-spill/);
    expect(files(spillDir).length).toBe(1);

    await pg.start();
    const second = await spawnServer(env());
    servers.push(second);
    expect(files(spillDir)).toEqual([]);
    const orm = await createOrm(pg.url, { poolMax: 1 });
    try {
      const stored = await storedCounts(orm, site.siteId);
      expect(log.acked.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      await orm.close();
    }
    second.proc.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 90_000);
});
