import type { EventEmitter } from 'node:events';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';
import { migrationsList } from './migrations/index.ts';
import type { PgPool } from './pg-client.ts';
import { releaseEndedConnections } from './pool-guard.ts';

export type Orm = MikroORM;

export interface OrmOptions {
  poolMax?: number;
  debug?: boolean;
  /** PostgreSQL's `statement_timeout` for every connection of this pool (ms; none when unset). */
  statementTimeoutMs?: number;
  /** How long a query waits for a free connection of the pool before failing (ms; forever when unset). */
  waitForConnectionMs?: number;
  /**
   * Awaited before each connection is taken from the pool: resolves when the caller may take one, with what to call
   * once it is given back (undefined: no turn to wait for). The caller's share of the pool (`gateConnections`).
   */
  connectTurn?: () => Promise<(() => void) | undefined>;
}

const pgPools = new WeakMap<Orm, () => PgPool | null>();

/** What a `pg` pool says of itself (pg-pool's getters), read structurally. */
interface PoolFigures {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max: number };
}

/** A pool's connections and waits at this moment (for the metrics). */
export interface PoolUse {
  /** Connections open, and of those the ones idle. */
  open: number;
  idle: number;
  max: number;
  /** Queries waiting for a connection now. */
  waiting: number;
  /** Queries that found every connection busy and had to wait, since the pool was made. */
  waits: number;
}

const poolWaits = new WeakMap<object, { waits: number }>();

/** Counts each checkout that finds every connection busy (pg-pool queues it until one is given back). */
function countWaits(pool: PgPool & PoolFigures): void {
  const tally = { waits: 0 };
  poolWaits.set(pool, tally);
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { connect: unknown }).connect = (...args: unknown[]) => {
    if (pool.idleCount === 0 && pool.totalCount >= pool.options.max) tally.waits += 1;
    return connect(...args);
  };
}

/**
 * Each checkout of the pool waits for `turn` first, and ends it when the connection is given back (pg-pool's
 * `release` event, a connection that ended included). Only the promise form is gated: Kysely's.
 */
function gateConnections(pool: PgPool & EventEmitter, turn: NonNullable<OrmOptions['connectTurn']>): void {
  const ends = new WeakMap<object, () => void>();
  pool.on('release', (_err: unknown, client: object) => {
    const end = ends.get(client);
    ends.delete(client);
    end?.();
  });
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<object>;
  (pool as { connect: unknown }).connect = async (...args: unknown[]) => {
    if (args.length) return connect(...args);
    const end = await turn();
    if (!end) return connect();
    try {
      const client = await connect();
      ends.set(client, end);
      return client;
    } catch (err) {
      end();
      throw err;
    }
  };
}

/** The connections and waits of the pool under an ORM (none yet before its first query makes the pool). */
export function poolUseOf(orm: Orm): PoolUse {
  const pool = pgPools.get(orm)?.() as (PgPool & PoolFigures) | null | undefined;
  if (!pool) return { open: 0, idle: 0, max: orm.config.get('pool')?.max ?? 0, waiting: 0, waits: 0 };
  return {
    open: pool.totalCount,
    idle: pool.idleCount,
    max: pool.options.max,
    waiting: pool.waitingCount,
    waits: poolWaits.get(pool)?.waits ?? 0,
  };
}

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
    onPoolCreated: (created: PgPool & PoolFigures & Parameters<typeof releaseEndedConnections>[0]) => {
      pool = created;
      releaseEndedConnections(created);
      countWaits(created);
      if (opts.connectTurn) gateConnections(created as PgPool & EventEmitter, opts.connectTurn);
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
