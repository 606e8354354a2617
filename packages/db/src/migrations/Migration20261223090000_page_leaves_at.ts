import { Migration } from '@mikro-orm/migrations';

/**
 * `page_leaves` by instant, as `pageviews` already is: a stats answer reads today's raw rows after the last
 * quarter-hour rollup with their leave reports, found by `at >= <the rollup's boundary>`. Without this index
 * that condition scanned every leave report of the range's partitions (yesterday's and today's: 312k rows,
 * 307 ms, for the few reports of the last minutes; 0.9 ms with it; docs/performance/history.md, "The
 * dashboard's leave reports"). Built in the migration's transaction: leave reports wait while it builds.
 */
export class Migration20261223090000_page_leaves_at extends Migration {
  override name = 'Migration20261223090000_page_leaves_at';

  override up(): void | Promise<void> {
    this.addSql(`create index if not exists "page_leaves_site_id_at_index" on "page_leaves" ("site_id", "at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "page_leaves_site_id_at_index";`);
  }
}
