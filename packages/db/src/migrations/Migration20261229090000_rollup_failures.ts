import { Migration } from '@mikro-orm/migrations';

/**
 * `rollup_failures`: the site-days whose rollup failed, with how often and when they are tried again
 * (apps/api/src/analytics/rollup/rollup-failures.ts). A day that fails every time waits longer and longer
 * between tries instead of being taken by every run, and after a week it no longer holds back the raw
 * partitions of every site (retention.ts). Keyed by site and day, distributed with the analytics plane on Citus.
 */
export class Migration20261229090000_rollup_failures extends Migration {
  override name = 'Migration20261229090000_rollup_failures';

  override up(): void | Promise<void> {
    this.addSql(`create table if not exists "rollup_failures" (
      "site_id" uuid not null,
      "day" date not null,
      "attempts" int not null,
      "first_failed_at" timestamptz not null,
      "next_try_at" timestamptz not null,
      "error" text not null,
      primary key ("site_id", "day")
    );`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rollup_failures";`);
  }
}
