import { Migration } from '@mikro-orm/migrations';

/**
 * `rollup_days.properties`: the site's kept custom property keys (settings `keptProperties`) when the
 * site-day was rolled up; its rollups hold `prop:<key>` rows for those keys (rollup format 10,
 * apps/api/src/analytics/catalogue.ts). Days rolled up before keep `{}`. The rollup job rolls a day
 * up again while its raw rows exist when the site's list differs, and the stats engine reads a
 * property from rollups only on days whose list holds its key.
 */
export class Migration20261220090000_rollup_kept_properties extends Migration {
  override name = 'Migration20261220090000_rollup_kept_properties';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" add column "properties" text[] not null default '{}';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" drop column "properties";`);
  }
}
