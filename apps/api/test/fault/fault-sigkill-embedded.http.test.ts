// The server on its embedded PostgreSQL (no DATABASE_URL, as `npm start` runs it) killed with SIGKILL, as the
// kernel's out-of-memory killer does: its PostgreSQL keeps running, holding DATA_DIR. The next start stops that
// PostgreSQL (what it committed is kept) and serves; a start while a server runs on the folder, or while a
// PostgreSQL no server here started runs there, is refused with what to do; a PostgreSQL that does not start says
// why; a start refused after PostgreSQL started (its port taken) stops it again.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, launchServer, type ServerProcess, spawnServer } from '../support/faults.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'us-sigkill-embedded-'));
const pgDir = path.join(dataDir, 'postgres');
const running: ServerProcess[] = [];

/** The pid and port of the PostgreSQL running in the data folder, from its postmaster.pid. */
function postmaster() {
  const lines = readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

async function query<R>(port: number, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/unseen` });
  await client.connect();
  try {
    return (await client.query(sql)).rows as R[];
  } finally {
    await client.end();
  }
}

async function start(env: Record<string, string> = {}) {
  const server = await spawnServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env }, 120_000);
  running.push(server);
  return server;
}

/** A start that must be refused: its exit and what it printed. */
async function refusedStart(env: Record<string, string> = {}) {
  const { exited, output } = launchServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env });
  return { exit: await exited, output: output() };
}

describe('fault: the server killed on its embedded PostgreSQL', () => {
  afterAll(async () => {
    for (const s of running) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGTERM');
    await Promise.all(running.map((s) => s.exited));
    if (existsSync(path.join(pgDir, 'postmaster.pid'))) {
      const { pid } = postmaster();
      if (isRunning(pid)) process.kill(pid, 'SIGINT');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts again after SIGKILL: the PostgreSQL left running is stopped first and what it committed is kept', async () => {
    const first = await start();
    const left = postmaster();
    await query(left.port, 'create table left_behind (note text); insert into left_behind values ($$committed$$)');
    first.proc.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // What the kill leaves: the PostgreSQL it started, still running and holding the folder.
    expect(isRunning(left.pid)).toBe(true);

    const second = await start();
    expect(second.output()).toContain(
      `stopped the embedded PostgreSQL (pid ${left.pid}) that a server which ended without stopping it left running`,
    );
    expect(isRunning(left.pid)).toBe(false);
    const now = postmaster();
    expect(now.pid).not.toBe(left.pid);
    expect(await query(now.port, 'select note from left_behind')).toEqual([{ note: 'committed' }]);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  }, 300_000);

  it('refuses a second server on the same folder, naming the one that runs, and the first goes on serving', async () => {
    const serving = running.at(-1) as ServerProcess;
    const refused = await refusedStart();
    expect(refused.exit.code, refused.output).toBe(1);
    expect(refused.output).toContain(
      `The embedded PostgreSQL in ${dataDir} is in use by a running server or demo generator (pid ${serving.proc.pid}): stop it first`,
    );
    expect(refused.output).not.toMatch(/\n\s+at /);
    expect((await fetch(`${serving.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('never stops a PostgreSQL that no server here started (no owner record): it says which to stop', async () => {
    const serving = running.at(-1) as ServerProcess;
    const owner = path.join(dataDir, 'postgres.owner');
    renameSync(owner, `${owner}.aside`);
    try {
      const refused = await refusedStart();
      const { pid } = postmaster();
      expect(refused.exit.code, refused.output).toBe(1);
      expect(refused.output).toContain(
        `A PostgreSQL no server here started (pid ${pid}) is running in ${pgDir}: stop it (kill -INT ${pid})`,
      );
      expect(isRunning(pid)).toBe(true);
      expect((await fetch(`${serving.url}/healthz`)).status).toBe(200);
    } finally {
      renameSync(`${owner}.aside`, owner);
    }
  }, 120_000);

  it('stops its PostgreSQL and gives the folder up on SIGTERM', async () => {
    const serving = running.at(-1) as ServerProcess;
    const { pid } = postmaster();
    serving.proc.kill('SIGTERM');
    expect((await serving.exited).code, serving.output()).toBe(0);
    expect(isRunning(pid)).toBe(false);
    expect(existsSync(path.join(dataDir, 'postgres.owner'))).toBe(false);
  }, 120_000);

  it('says which setting when its port is taken, and stops the PostgreSQL it started', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const refused = await refusedStart({ PORT: String(port) });
      expect(refused.exit.code, refused.output).toBe(1);
      expect(refused.output).toContain(`PORT: port ${port} on 127.0.0.1 is in use by another process`);
      expect(refused.output).not.toMatch(/\n\s+at /);
      // It had started the embedded PostgreSQL (its log says so), and stopped it again.
      expect(refused.output).toContain('embedded PostgreSQL running');
      expect(existsSync(path.join(pgDir, 'postmaster.pid'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'postgres.owner'))).toBe(false);
    } finally {
      taken.close();
    }
  }, 120_000);

  it('says why when PostgreSQL does not start (a setting it rejects), without a stack trace', async () => {
    const settings = path.join(dataDir, 'bad.conf');
    writeFileSync(settings, "shared_buffers = 'plenty'\n");
    const refused = await refusedStart({ POSTGRES_SETTINGS_FILE: settings });
    expect(refused.exit.code, refused.output).toBe(1);
    expect(refused.output).toContain(`The embedded PostgreSQL in ${pgDir} did not start:`);
    expect(refused.output).toMatch(/invalid value for parameter "shared_buffers"/);
    expect(refused.output).not.toMatch(/\n\s+at /);
    // Nothing is left claiming the folder.
    expect(existsSync(path.join(dataDir, 'postgres.owner'))).toBe(false);
  }, 120_000);
});

describe('fault: two servers started at once on a new data folder', () => {
  const fresh = mkdtempSync(path.join(tmpdir(), 'us-two-starts-'));
  const started: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of started) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGTERM');
    await Promise.all(started.map((s) => s.exited));
    rmSync(fresh, { recursive: true, force: true });
  });

  it('one makes the folder and serves; the other is refused, naming it, and the folder is whole', async () => {
    const a = launchServer({ DATA_DIR: fresh, LOG_LEVEL: 'info' });
    const b = launchServer({ DATA_DIR: fresh, LOG_LEVEL: 'info' });
    started.push({ url: '', ...a }, { url: '', ...b });
    // Each either listens or exits: the first to exit is the refused one.
    const ended = await Promise.race([a.exited.then(() => [b, a] as const), b.exited.then(() => [a, b] as const)]);
    const [serving, refused] = ended;
    expect((await refused.exited).code, refused.output()).toBe(1);
    expect(refused.output()).toContain(
      `The embedded PostgreSQL in ${fresh} is in use by a running server or demo generator (pid ${serving.proc.pid}): stop it first`,
    );
    expect(refused.output()).not.toMatch(/\n\s+at /);
    let url = '';
    await expect
      .poll(() => (url = /listening on (http:\/\/\S+)/.exec(serving.output())?.[1] ?? ''), { timeout: 120_000, interval: 200 })
      .not.toBe('');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    serving.proc.kill('SIGTERM');
    expect((await serving.exited).code, serving.output()).toBe(0);
    expect(existsSync(path.join(fresh, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(fresh, 'postgres.owner'))).toBe(false);
  }, 240_000);

  it("says why when PostgreSQL's files cannot be made (a folder already holding other files), without a stack trace", async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'us-not-empty-'));
    try {
      mkdirSync(path.join(other, 'postgres'));
      writeFileSync(path.join(other, 'postgres', 'notes.txt'), 'not a database\n');
      const { exited, output } = launchServer({ DATA_DIR: other, LOG_LEVEL: 'info' });
      expect((await exited).code, output()).toBe(1);
      expect(output()).toContain(`The embedded PostgreSQL's files could not be made in ${path.join(other, 'postgres')}:`);
      expect(output()).toMatch(/exists but is not empty/);
      expect(output()).not.toMatch(/\n\s+at /);
      // The file it found is still there, and nothing claims the folder.
      expect(readFileSync(path.join(other, 'postgres', 'notes.txt'), 'utf8')).toBe('not a database\n');
      expect(existsSync(path.join(other, 'postgres.owner'))).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 120_000);
});
