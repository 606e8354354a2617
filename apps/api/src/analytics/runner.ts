// Runs the engine's statements on the site's connection (the stats pool). The SQL is written by the
// statement builders, so Kysely only carries it: `CompiledQuery.raw` with server-side bind parameters.
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { Statement } from './sql.ts';

/** The rows of one statement, typed as its builder declared them. */
export async function run<Row>(em: EntityManager, statement: Statement<Row>): Promise<readonly Row[]> {
  const client = em.getConnection().getClient();
  const result = await client.executeQuery<Row>(CompiledQuery.raw(statement.sql, [...statement.parameters]));
  return result.rows;
}
