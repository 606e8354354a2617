// The server stopped (SIGTERM, as `docker stop` or systemd send it) while it starts on its embedded PostgreSQL:
// the first start's initdb and migrations take seconds. It finishes the start, stops what it started and exits
// 0, so no PostgreSQL is left running in DATA_DIR, and the next start serves.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, launchServer, type ServerProcess, spawnServer } from '../support/faults.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'us-sigterm-starting-'));
const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
const started: ServerProcess['proc'][] = [];

describe('fault: the server stopped while it starts its embedded PostgreSQL', () => {
  afterAll(async () => {
    for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (isRunning(pid)) process.kill(pid, 'SIGINT');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops its PostgreSQL and exits 0; the next start serves', { timeout: 240_000 }, async () => {
    const { proc, exited, output } = launchServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    started.push(proc);
    // PostgreSQL is up (its postmaster.pid written and its process running); the migrations of a new database still
    // run. Read in the poll: the file of a PostgreSQL that initdb starts and stops on its own comes and goes.
    const runningPid = () => {
      try {
        const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
        return pid > 0 && isRunning(pid) ? pid : 0;
      } catch {
        return 0;
      }
    };
    await expect.poll(runningPid, { timeout: 120_000, interval: 10 }).toBeGreaterThan(0);
    const pid = runningPid();
    expect(output()).not.toMatch(/listening on/);
    proc.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(isRunning(pid)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);

    const next = await spawnServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' }, 120_000);
    started.push(next.proc);
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
    next.proc.kill('SIGTERM');
    expect(await next.exited).toEqual({ code: 0, signal: null });
  });
});
