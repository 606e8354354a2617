import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { API_NODE_FLAGS, API_SOURCE_FLAGS, apiProcessEnv } from '../src/core/node-flags.ts';

/**
 * Starts a bench server script in its own process and waits for the JSON line it announces itself with.
 * The child also gets an IPC channel, over which `askChild` reaches bench-only controls (see api-server.ts).
 */
export async function startChild<T>(
  script: string,
  nodeArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  cgroup?: string,
): Promise<{ info: T; proc: ChildProcess }> {
  const argv = [process.execPath, ...nodeArgs, ...API_SOURCE_FLAGS, '--import', 'tsx', script];
  // In a cgroup: a shell joins it, then becomes the process (exec), so the child's pid is the server's.
  const [command, ...args] = cgroup ? ['/bin/sh', '-c', `echo $$ > '${cgroup}/cgroup.procs' && exec "$@"`, 'sh', ...argv] : argv;
  const proc = spawn(command as string, args, {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    if (line.startsWith('{')) return { info: JSON.parse(line) as T, proc };
  }
  throw new Error(`${script} exited before announcing itself`);
}

/**
 * Starts the bench API (api-server.ts) with the V8 flags and environment (MALLOC_ARENA_MAX) `npm start` gives the
 * API, and any others; `env` adds to this process's environment (BENCH_DATABASE_URL, BENCH_DATA_DIR: another
 * database, another folder).
 */
export function startApiChild<T>(nodeArgs: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const script = path.join(import.meta.dirname, 'api-server.ts');
  const machineMb = Number(process.env.BENCH_API_MEMORY_MB ?? 0);
  if (!Number.isInteger(machineMb) || (machineMb !== 0 && machineMb < 256)) {
    throw new Error(`BENCH_API_MEMORY_MB is the machine's memory in MB, 256 or more: not ${process.env.BENCH_API_MEMORY_MB}`);
  }
  return startChild<T>(
    script,
    [...API_NODE_FLAGS, ...nodeArgs],
    { ...apiProcessEnv(), ...env },
    machineMb ? memoryCgroup(machineMb) : undefined,
  );
}

/**
 * A cgroup (v1 memory controller) limited to `mb`, for `BENCH_API_MEMORY_MB`: the API started in it, with its
 * embedded PostgreSQL, has a machine of that size. Node sizes V8's heap (the young generation too) by the memory
 * its cgroup allows, as on such a machine. Needs a writable /sys/fs/cgroup/memory (root in a container).
 */
function memoryCgroup(mb: number): string {
  // Those of benches that ended without their clean-up (SIGKILL): removed once empty (one in use refuses).
  const stale = (() => {
    try {
      return readdirSync('/sys/fs/cgroup/memory').filter((d) => d.startsWith('us-bench-api-'));
    } catch {
      return [];
    }
  })();
  for (const old of stale) {
    try {
      rmdirSync(path.join('/sys/fs/cgroup/memory', old));
    } catch {}
  }
  const dir = `/sys/fs/cgroup/memory/us-bench-api-${process.pid}`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(mb * 1024 * 1024));
  } catch (err) {
    throw new Error(`BENCH_API_MEMORY_MB needs a writable memory cgroup (${dir}): ${(err as Error).message}`);
  }
  process.once('exit', () => {
    try {
      rmdirSync(dir); // once its processes are gone
    } catch {}
  });
  return dir;
}

export async function stopChild(proc: ChildProcess) {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
}

/** What a bench child answers to `{id, type}` on its IPC channel. */
export interface ChildReply {
  id: number;
  reply?: unknown;
  error?: string;
}

let lastId = 0;

/** Sends a control message (`type`, with `args` when it takes any) to a bench child and resolves with its reply. */
export function askChild<T>(proc: ChildProcess, type: string, args?: unknown): Promise<T> {
  const id = ++lastId;
  return new Promise((resolve, reject) => {
    const onMessage = (m: ChildReply) => {
      if (m?.id !== id) return;
      done();
      if (m.error) reject(new Error(`${type}: ${m.error}`));
      else resolve(m.reply as T);
    };
    const onExit = () => {
      done();
      reject(new Error(`the bench child exited before answering ${type}`));
    };
    const done = () => {
      proc.off('message', onMessage);
      proc.off('exit', onExit);
    };
    proc.on('message', onMessage);
    proc.once('exit', onExit);
    proc.send({ id, type, args });
  });
}
