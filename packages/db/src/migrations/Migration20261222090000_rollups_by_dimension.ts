import { Migration } from '@mikro-orm/migrations';

/**
 * `daily_rollups` read by dimension: every stats statement reads one site's rows of a few (metric set,
 * dimension) pairs over a range of days, where the primary key leads with the day, so a year's range read
 * every dimension's rows of every day to keep a few. This index leads with the pair and carries the
 * figures, so a range reads only its rows, from the index alone (docs/performance/history.md, "A year of
 * rollups"). Built in the migration's transaction: rollup writes wait while it builds (about half a minute
 * for 5M rollup rows; reads go on). Not `concurrently`: that waits for every older transaction to end,
 * the migrator's own included.
 */
export class Migration20261222090000_rollups_by_dimension extends Migration {
  override name = 'Migration20261222090000_rollups_by_dimension';

  override up(): void | Promise<void> {
    this.addSql(
      `create index if not exists "daily_rollups_site_id_metric_set_dimension_lane_day_index" on "daily_rollups" ("site_id", "metric_set", "dimension", "lane", "day") include ("value", "count", "visitors");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "daily_rollups_site_id_metric_set_dimension_lane_day_index";`);
  }
}
