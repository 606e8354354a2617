import { Migration } from '@mikro-orm/migrations';

/**
 * `rollup_days.omitted_pairs`: the dimension pairs a day's rollup left out because they had too many values to be
 * a summary (apps/api/src/analytics/rollup/rollup-tally.ts, PAIR_VALUES_PER_DAY). A question needing one of them
 * reads that day's raw rows, and is refused for such days older than the raw rows.
 */
export class Migration20261226090000_rollup_omitted_pairs extends Migration {
  override name = 'Migration20261226090000_rollup_omitted_pairs';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" add column if not exists "omitted_pairs" text[] not null default '{}';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rollup_days" drop column if exists "omitted_pairs";`);
  }
}
