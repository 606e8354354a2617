import { Migration } from '@mikro-orm/migrations';

/**
 * `rollup_days.rolled_until`: null for a complete site-day; for the current day, the instant its rollup
 * rows reach (an hour boundary), so the stats engine reads only the raw rows after it
 * (apps/api/src/analytics/rollup/rollup-today.ts). The complete day's rollup replaces them.
 */
export class Migration20261203090000_rollup_today extends Migration {
  override name = 'Migration20261203090000_rollup_today';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" add column "rolled_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "daily_rollups" d using "rollup_days" r
      where r.site_id = d.site_id and r.day = d.day and r.rolled_until is not null;`);
    this.addSql(`delete from "rollup_days" where "rolled_until" is not null;`);
    this.addSql(`alter table "rollup_days" drop column "rolled_until";`);
  }
}
