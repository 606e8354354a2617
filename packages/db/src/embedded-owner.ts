// Who runs the embedded PostgreSQL of a data folder. PostgreSQL does not watch the process that started it: a
// server killed without stopping it (SIGKILL, the kernel's out-of-memory killer) leaves its PostgreSQL running
// and holding the folder, and the next start failed. So a server that started one records itself and it beside
// the folder (`postgres.owner`), and a start that finds that PostgreSQL still running stops it once its server is
// gone, or says who holds the folder while that server runs. The record is made before anything else is (created
// only where none is), so it also keeps two starts at once from both making a new folder's database.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The embedded PostgreSQL could not be started: the folder is held by another running server, or it failed. */
export class EmbeddedPostgresUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedPostgresUnavailable';
  }
}

/** How long a PostgreSQL left running gets for its fast shutdown (a checkpoint of what it holds). */
const ORPHAN_STOP_MS = 60_000;

/** A process: its pid and, on Linux, when it started (so a pid used again by another process is not taken for it). */
interface ProcessMark {
  pid: number;
  started: string | null;
}

/** Process `pid`'s state and when it started (fields 3 and 22 of /proc/<pid>/stat), where /proc tells them. */
function procStat(pid: number): { state: string; started: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', started: fields[19] ?? '' };
  } catch {
    return null;
  }
}

const startTimeOf = (pid: number) => procStat(pid)?.started ?? null;

/** Whether a process runs (one of another user, e.g. PostgreSQL's `postgres` user, answers EPERM: it runs; an exited one not yet reaped does not). */
function isRunning(mark: ProcessMark): boolean {
  try {
    process.kill(mark.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(mark.pid);
  if (stat?.state === 'Z') return false;
  return mark.started === null || stat === null || stat.started === mark.started;
}

const ownerFile = (dataDir: string) => path.join(dataDir, 'postgres.owner');

/** The owner record: the server's pid and start, and the pid of the PostgreSQL it started. */
function readOwner(dataDir: string): (ProcessMark & { postmaster: number | null }) | null {
  try {
    const [pid, started, postmaster] = readFileSync(ownerFile(dataDir), 'utf8').trim().split(' ');
    const n = Number(pid);
    const pm = Number(postmaster);
    if (!Number.isInteger(n) || n <= 0) return null;
    return {
      pid: n,
      started: started && started !== '-' ? started : null,
      postmaster: Number.isInteger(pm) && pm > 0 ? pm : null,
    };
  } catch {
    return null;
  }
}

/** The postmaster running in `dir` (its postmaster.pid names a live process), or null. */
function runningPostmaster(dir: string): number | null {
  const file = path.join(dir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning({ pid, started: null })) return null;
  // Where /proc tells it, the pid must be a PostgreSQL's (a stale file's pid may be another process's by now).
  const cmdline = readCmdline(pid);
  return cmdline === null || cmdline.includes('postgres') ? pid : null;
}

function readCmdline(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stops a PostgreSQL this process did not start (fast shutdown: open transactions roll back, committed ones stay). */
async function stopLeftRunning(pid: number, dir: string): Promise<void> {
  process.kill(pid, 'SIGINT');
  const until = Date.now() + ORPHAN_STOP_MS;
  while (isRunning({ pid, started: null })) {
    if (Date.now() > until) {
      throw new EmbeddedPostgresUnavailable(
        `The embedded PostgreSQL a stopped server left running in ${dir} (pid ${pid}) did not stop within ${ORPHAN_STOP_MS / 1000} s: wait for it, or end it with kill -QUIT ${pid} (PostgreSQL recovers at its next start), then start again.`,
      );
    }
    await sleep(50);
  }
}

/** What a start that holds the folder does with it: note the PostgreSQL it started, and give the folder up. */
export interface EmbeddedClaim {
  /** Records the PostgreSQL now running in `dir` as this process's (a later start stops it once this process is gone). */
  started(): void;
  /** Gives the record up (the PostgreSQL stopped, or never started). */
  release(): void;
}

/** The record as this process writes it: pid, start, and its PostgreSQL's pid once started ('-' before). */
const ownRecord = (postmaster: number | null) => `${process.pid} ${startTimeOf(process.pid) ?? '-'} ${postmaster ?? '-'}\n`;

/** Creates the owner record, only where there is none (atomic: of two starts at once, one creates it). */
function createRecord(dataDir: string): boolean {
  try {
    writeFileSync(ownerFile(dataDir), ownRecord(null), { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/**
 * Takes away a record `stale` read as one of a server that is gone. Moved aside first, then looked at: when another
 * start replaced it meanwhile, the record moved is that start's, and it is put back.
 */
function removeStaleRecord(dataDir: string, stale: string): void {
  const aside = `${ownerFile(dataDir)}.stale-${process.pid}`;
  try {
    renameSync(ownerFile(dataDir), aside);
  } catch {
    return; // gone already: another start took it away
  }
  if (readFileSync(aside, 'utf8') === stale) rmSync(aside, { force: true });
  else renameSync(aside, ownerFile(dataDir));
}

const readRecord = (dataDir: string) => {
  try {
    return readFileSync(ownerFile(dataDir), 'utf8');
  } catch {
    return null;
  }
};

/**
 * Claims `dir` (`dataDir`/postgres) for this process to make and start its embedded PostgreSQL, before anything is
 * made there: of two starts at once on a new folder, one makes it and the other is refused. A PostgreSQL left running
 * by a server that is gone (the owner record names it and its server) is stopped first, and `onStopped` says so; one
 * whose server still runs (or is starting), or that no record names (a server of a version before the record, or run
 * by hand), is left alone and the start refused: only a PostgreSQL known to be left behind is ever stopped.
 */
export async function claimEmbeddedFolder(
  dataDir: string,
  dir: string,
  onStopped: (message: string) => void,
): Promise<EmbeddedClaim> {
  for (let attempt = 0; ; attempt++) {
    // Starts racing over one stale record settle within a few rounds; more means something else rewrites it.
    if (attempt > 5) {
      throw new EmbeddedPostgresUnavailable(`Could not take ${ownerFile(dataDir)}: another start keeps changing it.`);
    }
    if (createRecord(dataDir)) {
      const running = runningPostmaster(dir);
      if (running !== null) {
        rmSync(ownerFile(dataDir), { force: true });
        throw new EmbeddedPostgresUnavailable(
          `A PostgreSQL no server here started (pid ${running}) is running in ${dir}: stop it (kill -INT ${running}), then start again.`,
        );
      }
      return {
        started: () => writeFileSync(ownerFile(dataDir), ownRecord(runningPostmaster(dir))),
        release: () => {
          if (readOwner(dataDir)?.pid === process.pid) rmSync(ownerFile(dataDir), { force: true });
        },
      };
    }
    const text = readRecord(dataDir);
    if (text === null) continue; // taken away meanwhile: claim again
    const owner = readOwner(dataDir);
    if (owner && isRunning(owner)) {
      throw new EmbeddedPostgresUnavailable(
        `The embedded PostgreSQL in ${dataDir} is in use by a running server or demo generator (pid ${owner.pid}): stop it first, or give this one another DATA_DIR.`,
      );
    }
    const running = runningPostmaster(dir);
    if (running !== null) {
      if (owner?.postmaster !== running) {
        throw new EmbeddedPostgresUnavailable(
          `A PostgreSQL no server here started (pid ${running}) is running in ${dir}: stop it (kill -INT ${running}), then start again.`,
        );
      }
      await stopLeftRunning(running, dir);
      onStopped(
        `stopped the embedded PostgreSQL (pid ${running}) that a server which ended without stopping it left running in ${dir}`,
      );
    }
    removeStaleRecord(dataDir, text);
  }
}
