/**
 * Generates a migration from the difference between the entities and a fresh database that has every
 * committed migration applied. Review the file, add it to src/migrations/index.ts, commit it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/embedded.ts';
import { createOrm, migrate } from '../src/orm.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'us-migration-'));
const db = await startEmbeddedPostgres({ dataDir: dir, persistent: false });
try {
  const orm = await createOrm(db.url);
  await migrate(orm);
  const result = await orm.migrator.create(path.resolve(import.meta.dirname, '../src/migrations'), false, false, process.argv[2]);
  console.log(result.fileName ? `wrote ${result.fileName}` : 'no changes');
  console.log(result.diff.up.join('\n'));
  await orm.close();
} finally {
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
