// The test run's database: an embedded PostgreSQL, or with TEST_DATABASE=citus (`npm run test:citus`) a local
// Citus coordinator and two workers (scripts/citus/cluster.ts), every migration applied and the tables laid out.
import { createOrm, migrate, startEmbeddedPostgres } from '@us/db';
import {
  CITUS_VERSION,
  type CitusNode,
  citusInstalled,
  freePortRun,
  startCitusCluster,
} from '../../../../scripts/citus/cluster.ts';

export type DatabaseKind = 'postgres' | 'citus';

export const testDatabaseKind = (): DatabaseKind => (process.env.TEST_DATABASE === 'citus' ? 'citus' : 'postgres');

export interface TestDatabase {
  url: string;
  kind: DatabaseKind;
  /** The Citus cluster's workers (fault tests stop one), empty otherwise. */
  citusWorkers: CitusNode[];
  stop(): Promise<void>;
}

export async function startTestDatabase(dir: string): Promise<TestDatabase> {
  const kind = testDatabaseKind();
  let db: { url: string; stop(): Promise<void> };
  let citusWorkers: CitusNode[] = [];
  if (process.env.TEST_DATABASE_URL) {
    // A database started by hand (e.g. `npm run citus -- detach`): its data stays for a look afterwards.
    db = { url: process.env.TEST_DATABASE_URL, stop: async () => {} };
  } else if (kind === 'citus') {
    if (!citusInstalled()) {
      throw new Error(`TEST_DATABASE=citus needs Citus ${CITUS_VERSION} installed: run bash scripts/citus/build.sh (as root)`);
    }
    const cluster = await startCitusCluster({ dataDir: dir, basePort: await freePortRun(3), database: 'test' });
    db = { url: cluster.url, stop: async () => cluster.stop() };
    citusWorkers = cluster.workers;
  } else {
    db = await startEmbeddedPostgres({ dataDir: dir, persistent: false, database: 'test' });
  }
  const orm = await createOrm(db.url);
  await migrate(orm);
  await orm.close();
  return { ...db, kind, citusWorkers };
}
