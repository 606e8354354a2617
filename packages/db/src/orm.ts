import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.ts';
import { migrationsList } from './migrations/index.ts';

export type Orm = MikroORM;

/** Connects to PostgreSQL with every entity and the committed migrations. */
export async function createOrm(url: string, opts: { poolMax?: number; debug?: boolean } = {}): Promise<Orm> {
  return MikroORM.init({
    clientUrl: url,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    debug: opts.debug ?? false,
    // A request without a request context must not silently share the global identity map.
    allowGlobalContext: false,
  });
}

/** Runs every committed migration that has not run yet (at start-up). */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
