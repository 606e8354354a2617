import { Migration } from '@mikro-orm/migrations';

/**
 * `rollup_days.timezone`: the site's time zone a day's rollup was counted in (the local day's bounds). A site whose
 * time zone changes gets its days counted again in the new one, and until then they are read from the raw rows
 * (apps/api/src/features/stats/rolled-days.ts). Rollups recorded before this column have none: they were counted
 * in the site's zone of the time, which the first change of zone writes into them (features/sites/sites.ts).
 */
export class Migration20261225090000_rollup_timezone extends Migration {
  override name = 'Migration20261225090000_rollup_timezone';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" add column if not exists "timezone" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" drop column if exists "timezone";`);
  }
}
