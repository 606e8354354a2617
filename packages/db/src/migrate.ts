import { layOutOnCitus } from './citus.ts';
import type { Orm } from './orm.ts';

/**
 * Runs every committed migration that has not run yet (at start-up), then, on a Citus coordinator, lays the
 * tables out over the workers (citus.ts).
 */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
  await layOutOnCitus(orm);
}
