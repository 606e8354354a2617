import { Migration } from '@mikro-orm/migrations';

/**
 * The per-day store of the results and journeys routes (apps/api/src/analytics/day-store/): per site,
 * kind (`visits`, `goal`, `experiment`, `journeys`), spec (a hash of everything that determines the
 * figures: definition, time zone, bot windows touching the day) and UTC `day`, the rows the raw
 * statement gives for that one UTC day, as JSON. Sessions never cross a UTC day, so such rows add up.
 * `seen` is how many pageview and event rows the day had when computed: the job recomputes a day whose
 * count has changed since (late rows).
 */
export class Migration20261125090000_result_days extends Migration {
  override name = 'Migration20261125090000_result_days';

  override up(): void | Promise<void> {
    this.addSql(`create table "result_days" (
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "kind" text not null,
      "spec" text not null,
      "day" date not null,
      "rows" jsonb not null,
      "seen" bigint not null,
      "computed_at" timestamptz not null default now(),
      primary key ("site_id", "kind", "spec", "day")
    );`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "result_days";`);
  }
}
