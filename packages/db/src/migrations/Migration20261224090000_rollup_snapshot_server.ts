import { Migration } from '@mikro-orm/migrations';

/**
 * `rollup_days.snapshot_server`: which PostgreSQL took a rollup's snapshot (its `system_identifier`). A snapshot
 * and the raw rows' arrivals are that server's transaction ids; a database restored into another PostgreSQL
 * (a dump brought back, a move) numbers its transactions anew, so a snapshot from another server is never
 * compared with this one's arrivals (analytics/rollup/rollup-restored.ts). Rollups recorded before this column
 * have none: each such day is counted whole once.
 */
export class Migration20261224090000_rollup_snapshot_server extends Migration {
  override name = 'Migration20261224090000_rollup_snapshot_server';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" add column if not exists "snapshot_server" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" drop column if exists "snapshot_server";`);
  }
}
