import { Migration } from '@mikro-orm/migrations';

/**
 * `imports.turn_at`: when the import's last turn began. The import job gives imports due turns a file at a time,
 * workspace by workspace (the one whose imports had the oldest turn first), so one workspace's many imports do not
 * hold back another's (apps/api/src/features/imports/imports-job.ts).
 */
export class Migration20261227090000_import_turns extends Migration {
  override name = 'Migration20261227090000_import_turns';

  override up(): void | Promise<void> {
    this.addSql(`alter table "imports" add column if not exists "turn_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "imports" drop column if exists "turn_at";`);
  }
}
