import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.ts';
import { migrationsList } from './migrations/index.ts';
import { releaseEndedConnections } from './pool-guard.ts';

export type Orm = MikroORM;

export interface OrmOptions {
  poolMax?: number;
  debug?: boolean;
  /** PostgreSQL's `statement_timeout` for every connection of this pool (ms; none when unset). */
  statementTimeoutMs?: number;
  /** How long a query waits for a free connection of the pool before failing (ms; forever when unset). */
  waitForConnectionMs?: number;
}

/** Connects to PostgreSQL with every entity and the committed migrations. */
export async function createOrm(url: string, opts: OrmOptions = {}): Promise<Orm> {
  const driverOptions: Record<string, unknown> = { onPoolCreated: releaseEndedConnections };
  if (opts.statementTimeoutMs) driverOptions.statement_timeout = opts.statementTimeoutMs;
  if (opts.waitForConnectionMs) driverOptions.connectionTimeoutMillis = opts.waitForConnectionMs;
  return MikroORM.init({
    clientUrl: url,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    driverOptions,
    debug: opts.debug ?? false,
    // A request without a request context must not silently share the global identity map.
    allowGlobalContext: false,
  });
}

/** Runs every committed migration that has not run yet (at start-up). */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
