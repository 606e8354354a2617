import { Migration } from '@mikro-orm/migrations';

/**
 * `rollup_days.version`: the rollup format a site-day was written in. Version 2 adds the dimension
 * pairs (`country|page`, …; apps/api/src/analytics/catalogue.ts). Days rolled up before keep 1:
 * the rollup job rolls those up again while their raw rows exist, and the stats engine reads a pair
 * only from days of version 2 (older ones without raw rows are refused for pairs, with the reason).
 */
export class Migration20261202090000_rollup_pairs extends Migration {
  override name = 'Migration20261202090000_rollup_pairs';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" add column "version" smallint not null default 1;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" drop column "version";`);
  }
}
