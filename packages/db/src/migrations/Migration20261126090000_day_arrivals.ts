import { Migration } from '@mikro-orm/migrations';

/**
 * `day_arrivals`: per site and UTC `day`, how many pageview and event rows have been inserted for that
 * day, ever (bumped in the statement that inserts them, packages/db/src/analytics/insert.ts). A version
 * number rather than a count: it only grows, so the per-day store of the results routes knows in one
 * index lookup whether a day got rows since its figures were computed (`result_days.seen`), where a
 * `count(*)` of a live day read hundreds of thousands of rows. No reference to `sites`: rows of a site
 * deleted while its reports were buffered must still insert. Filled here from the rows already stored.
 */
export class Migration20261126090000_day_arrivals extends Migration {
  override name = 'Migration20261126090000_day_arrivals';

  override up(): void | Promise<void> {
    this.addSql(`create table "day_arrivals" (
      "site_id" uuid not null,
      "day" date not null,
      "rows" bigint not null,
      primary key ("site_id", "day")
    );`);
    this.addSql(`insert into "day_arrivals" ("site_id", "day", "rows")
      select site_id, day, sum(n) from (
        select site_id, day, count(*) as n from "pageviews" group by 1, 2
        union all
        select site_id, day, count(*) from "events" group by 1, 2
      ) x group by 1, 2;`);
    // Stored days were checked against row counts: the versions start from those counts, so they stay valid.
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "day_arrivals";`);
  }
}
