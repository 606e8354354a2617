// The two databases the scale-out section compares, both on this machine: one plain PostgreSQL 15, and a
// Citus coordinator with two workers (each a PostgreSQL 15 of the same build and settings, Citus loaded),
// on free 127.0.0.1 ports under one folder. Stopped, and their folders removed unless kept, by `stop`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  type CitusCluster,
  freePortRun,
  PG_MAJOR,
  type PlainPostgres,
  startCitusCluster,
  startPlainPostgres,
} from '../../../scripts/citus/cluster.ts';

export interface ScaleoutNodes {
  postgres: PlainPostgres;
  citus: CitusCluster;
  stop(opts: { keep: boolean }): void;
}

/**
 * Stops whatever node under `dataDir/citus` is still running after the cluster failed to start (those it had
 * started by then), as `postgres` when we are root, as cluster.ts runs them.
 */
function stopLeftNodes(dataDir: string) {
  const root = path.join(dataDir, 'citus');
  if (!existsSync(root)) return;
  for (const name of readdirSync(root)) {
    const dir = path.join(root, name);
    if (!existsSync(path.join(dir, 'postmaster.pid'))) continue;
    const pgCtl = [`/usr/lib/postgresql/${PG_MAJOR}/bin/pg_ctl`, '-D', dir, '-m', 'fast', '-w', 'stop'];
    const [cmd, ...args] = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...pgCtl] : pgCtl;
    spawnSync(cmd as string, args, { stdio: 'ignore' });
  }
}

/** Starts both under `dataDir` (fresh: whatever an earlier run kept there is removed first). */
export async function startScaleoutNodes(dataDir: string): Promise<ScaleoutNodes> {
  rmSync(dataDir, { recursive: true, force: true });
  const base = await freePortRun(4);
  const postgres = await startPlainPostgres({ dataDir, port: base, database: 'bench' });
  let citus: CitusCluster;
  try {
    citus = await startCitusCluster({ dataDir, basePort: base + 1, workers: 2, database: 'bench' });
  } catch (err) {
    stopLeftNodes(dataDir);
    postgres.stop({ remove: true });
    throw err;
  }
  return {
    postgres,
    citus,
    stop({ keep }) {
      citus.stop({ remove: !keep });
      postgres.stop({ remove: !keep });
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
