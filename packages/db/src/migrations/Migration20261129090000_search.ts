import { Migration } from '@mikro-orm/migrations';

/**
 * Search connections (spec §2 "Search connection and weekly figures"): per site and source (`primary`:
 * Google Search Console, `secondary`: Bing Webmaster Tools) what is connected, the credentials sealed
 * with the app secret (never returned, never exported), and how the last pull went. `search_weeks`: one
 * row per site, source and week (Monday), kept when a source is disconnected; null figures were not
 * collected, zero is a measurement.
 */
export class Migration20261129090000_search extends Migration {
  override name = 'Migration20261129090000_search';

  override up(): void | Promise<void> {
    this.addSql(`create table "search_connections" (
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "source" text not null check ("source" in ('primary', 'secondary')),
      "mode" text null,
      "property" text not null,
      "account" text null,
      "credentials_enc" text null,
      "connected_at" timestamptz not null default now(),
      "last_pull_at" timestamptz null,
      "last_pull_ok" boolean null,
      "last_pull_message" text null,
      "failures" int not null default 0,
      "next_pull_at" timestamptz null,
      primary key ("site_id", "source")
    );`);
    this.addSql(`create table "search_weeks" (
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "source" text not null,
      "week" date not null,
      "clicks" bigint null,
      "impressions" bigint null,
      "ctr" double precision null,
      "position" double precision null,
      "pages" int null,
      "queries" int null,
      "links" bigint null,
      "updated_at" timestamptz not null default now(),
      primary key ("site_id", "source", "week")
    );`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "search_weeks";`);
    this.addSql(`drop table "search_connections";`);
  }
}
