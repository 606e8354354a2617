import { Migration } from '@mikro-orm/migrations';

/**
 * Incremental rollups (apps/api/src/jobs/rollup-delta.ts). Each raw row records the transaction that
 * inserted it (`arrival`, filled by its default); a site-day's rollup records the snapshot it counted
 * (`rollup_days.snapshot`), so the next refresh knows exactly which rows it has not seen yet, late ones
 * included. Rows stored before this migration have no arrival: every rollup has seen them.
 * The column is added without a default first, so existing partitions are not rewritten.
 */
const RAW = ['pageviews', 'events', 'requests', 'page_leaves'];

export class Migration20261206090000_rollup_arrivals extends Migration {
  override name = 'Migration20261206090000_rollup_arrivals';

  override up(): void | Promise<void> {
    for (const t of RAW) {
      this.addSql(`alter table "${t}" add column "arrival" xid8 null;`);
      this.addSql(`alter table "${t}" alter column "arrival" set default pg_current_xact_id();`);
    }
    this.addSql(`alter table "rollup_days" add column "snapshot" pg_snapshot null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" drop column "snapshot";`);
    for (const t of RAW) this.addSql(`alter table "${t}" drop column "arrival";`);
  }
}
