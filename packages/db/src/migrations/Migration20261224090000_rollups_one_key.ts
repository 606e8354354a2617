import { Migration } from '@mikro-orm/migrations';

/**
 * `daily_rollups` keyed by the index the stats read: the primary key becomes `(site_id, metric_set, dimension,
 * lane, day, value)` carrying `count` and `visitors`, in place of the day-first key beside the covering index of
 * Migration20261222090000 (the same rows are unique either way). Every rollup write kept both up to date, and the
 * covering one holds the two figures, so a quarter-hour step's updates were never in place: one index instead of
 * two takes a quarter-hour step's write down by a fifth or more and the rollups' indexes down by ~40 %
 * (docs/performance/history.md, "One key for the rollups"). A narrow `(site_id, day)` index serves what reads a
 * site's days (a day's replacement and delete, retention, imports, the first day with figures).
 *
 * The new indexes are built first, while reads go on (writes wait); the key then moves to the new index, which
 * holds the table against reads only for a moment. About half a minute for 5M rollup rows.
 */
export class Migration20261224090000_rollups_one_key extends Migration {
  override name = 'Migration20261224090000_rollups_one_key';

  override up(): void | Promise<void> {
    this.addSql(
      `create unique index "daily_rollups_key" on "daily_rollups" ("site_id", "metric_set", "dimension", "lane", "day", "value") include ("count", "visitors");`,
    );
    this.addSql(`create index "daily_rollups_site_id_day_index" on "daily_rollups" ("site_id", "day");`);
    this.addSql(`alter table "daily_rollups" drop constraint "daily_rollups_pkey";`);
    this.addSql(`alter table "daily_rollups" add constraint "daily_rollups_pkey" primary key using index "daily_rollups_key";`);
    this.addSql(`drop index if exists "daily_rollups_site_id_metric_set_dimension_lane_day_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql(
      `create index if not exists "daily_rollups_site_id_metric_set_dimension_lane_day_index" on "daily_rollups" ("site_id", "metric_set", "dimension", "lane", "day") include ("value", "count", "visitors");`,
    );
    this.addSql(
      `create unique index "daily_rollups_day_key" on "daily_rollups" ("site_id", "day", "metric_set", "dimension", "value", "lane");`,
    );
    this.addSql(`alter table "daily_rollups" drop constraint "daily_rollups_pkey";`);
    this.addSql(`alter table "daily_rollups" add constraint "daily_rollups_pkey" primary key using index "daily_rollups_day_key";`);
    this.addSql(`drop index if exists "daily_rollups_site_id_day_index";`);
  }
}
