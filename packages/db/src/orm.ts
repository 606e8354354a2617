import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
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

/** What of a `pg` pool's client a COPY stream needs (structural, so `pg`'s types are not needed here). */
export interface PgClient {
  query<T>(query: T): T;
  escapeLiteral(value: string): string;
  release(err?: Error | boolean): void;
}
export interface PgPool {
  connect(): Promise<PgClient>;
}

/** Gives `client` back to its pool once, however many paths end its use; with an error it is discarded. */
export function releaseOnce(client: PgClient): (err?: Error) => void {
  let released = false;
  return (err) => {
    if (released) return;
    released = true;
    client.release(err ?? false);
  };
}

const pgPools = new WeakMap<Orm, () => PgPool | null>();

/**
 * The `pg` pool under an ORM, for what the ORM cannot do (a COPY streamed to a download). The pool is
 * made with the ORM's first query, so one is run when there was none yet.
 */
export async function pgPoolOf(orm: Orm): Promise<PgPool> {
  const get = pgPools.get(orm);
  if (!get) throw new Error('this ORM was not made by createOrm');
  if (!get()) await orm.em.fork().getConnection().execute('select 1');
  const pool = get();
  if (!pool) throw new Error('the ORM has no pg pool');
  return pool;
}

/** Connects to PostgreSQL with every entity and the committed migrations. */
export async function createOrm(url: string, opts: OrmOptions = {}): Promise<Orm> {
  let pool: PgPool | null = null;
  const driverOptions: Record<string, unknown> = {
    onPoolCreated: (created: PgPool & Parameters<typeof releaseEndedConnections>[0]) => {
      pool = created;
      releaseEndedConnections(created);
    },
  };
  if (opts.statementTimeoutMs) driverOptions.statement_timeout = opts.statementTimeoutMs;
  if (opts.waitForConnectionMs) driverOptions.connectionTimeoutMillis = opts.waitForConnectionMs;
  const orm = await MikroORM.init({
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
  pgPools.set(orm, () => pool);
  return orm;
}

/** Runs every committed migration that has not run yet (at start-up). */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
