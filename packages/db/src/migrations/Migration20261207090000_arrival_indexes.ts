import { Migration } from '@mikro-orm/migrations';

/**
 * `(site_id, arrival)` on every raw table: an incremental rollup (apps/api/src/analytics/rollup/rollup-delta.ts)
 * looks for the rows its last rollup did not see as "after its `until`" (the `(site_id, at)` index) or
 * "arrived at or after its snapshot's xmin" (this one), instead of testing every row of the day, which
 * made finding a busy hour's recounted visitors faster (docs/performance/history.md, "Quarter-hour steps").
 * Arrivals only grow, so inserts add to the right edge of each site's part of the index.
 */
const RAW = ['pageviews', 'events', 'requests', 'page_leaves'];

export class Migration20261207090000_arrival_indexes extends Migration {
  override name = 'Migration20261207090000_arrival_indexes';

  override up(): void | Promise<void> {
    for (const t of RAW) this.addSql(`create index "${t}_site_id_arrival_index" on "${t}" ("site_id", "arrival");`);
  }

  override down(): void | Promise<void> {
    for (const t of RAW) this.addSql(`drop index "${t}_site_id_arrival_index";`);
  }
}
