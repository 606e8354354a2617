import { Migration } from '@mikro-orm/migrations';

/**
 * Incremental rollups (apps/api/src/analytics/rollup/rollup-delta.ts). Each raw row records the transaction that
 * inserted it (`arrival`, filled by its default); a site-day's rollup records the snapshot it counted
 * (`rollup_days.snapshot`), so the next refresh knows exactly which rows it has not seen yet, late ones
 * included. Rows stored before this migration have no arrival: every rollup has seen them.
 * The column is added without a default first, so existing partitions are not rewritten.
 * `pageviews (site_id, visitor)`: the recounted visitors' rows are found through it, not by scanning
 * the day (on a large database the index takes a while to build, blocking inserts meanwhile).
 * `daily_rollups` pages keep 30 % free, so adding to a day's rows updates them in place (HOT: the
 * six-column key's index is not touched), faster than rewriting them (both: docs/performance/history.md, "Incremental rollups").
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
    this.addSql(`create index "pageviews_site_id_visitor_index" on "pageviews" ("site_id", "visitor");`);
    this.addSql(`alter table "daily_rollups" set (fillfactor = 70);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "daily_rollups" reset (fillfactor);`);
    this.addSql(`drop index "pageviews_site_id_visitor_index";`);
    this.addSql(`alter table "rollup_days" drop column "snapshot";`);
    for (const t of RAW) this.addSql(`alter table "${t}" drop column "arrival";`);
  }
}
