import { Migration } from '@mikro-orm/migrations';

/**
 * Raw analytics tables, partitioned by the UTC day of `at` (one partition per table and day, created
 * ahead by `ensurePartitions`, dropped after 90 days by `dropPartitionsBefore`), plus the daily rollups
 * kept after that. No foreign keys; `site_id` leads every key. Never a column for an IP address or a
 * full user agent.
 */
export class Migration20261122080000_analytics extends Migration {
  override name = 'Migration20261122080000_analytics';

  override up(): void | Promise<void> {
    this.addSql(`create table "pageviews" ("site_id" uuid not null, "day" date not null, "id" uuid not null, "at" timestamptz not null, "pageview_id" text not null, "visitor" text not null, "session_start" boolean not null default false, "lane" text not null, "path" text not null, "page_type" text null, "referrer_host" text null, "utm_source" text null, "utm_medium" text null, "utm_campaign" text null, "country" char(2) null, "asn" int null, "as_org" text null, "device" text not null, "window_width" int null, "language" text null, "timezone" text null, "scroll_depth" smallint null, "time_on_page_ms" int null, "interacted" boolean null, "tls" text null, "bot_name" text null, "bot_category" text null, primary key ("site_id", "day", "id")) partition by range ("day");`);
    this.addSql(`create index "pageviews_site_id_at_index" on "pageviews" ("site_id", "at");`);
    this.addSql(`create index "pageviews_site_id_pageview_id_index" on "pageviews" ("site_id", "pageview_id");`);

    this.addSql(`create table "events" ("site_id" uuid not null, "day" date not null, "id" uuid not null, "at" timestamptz not null, "pageview_id" text not null, "visitor" text not null, "lane" text not null, "path" text not null, "name" text not null, "label" text null, "value" double precision null, "kind" text not null default 'event', "experiment" text null, "variant" text null, "country" char(2) null, "device" text not null, primary key ("site_id", "day", "id")) partition by range ("day");`);
    this.addSql(`create index "events_site_id_at_index" on "events" ("site_id", "at");`);
    this.addSql(`create index "events_site_id_name_index" on "events" ("site_id", "name");`);

    this.addSql(`create table "requests" ("site_id" uuid not null, "day" date not null, "id" uuid not null, "at" timestamptz not null, "method" text not null, "path" text not null, "status" smallint not null, "cache" text null, "duration_ms" int not null, "lane" text not null, "kind" text not null, "bot_name" text null, "bot_category" text null, "verified" boolean not null default false, "country" char(2) null, "asn" int null, "as_org" text null, "tls" text null, "decision" text null, "reason" text null, primary key ("site_id", "day", "id")) partition by range ("day");`);
    this.addSql(`create index "requests_site_id_at_index" on "requests" ("site_id", "at");`);

    this.addSql(`create table "daily_rollups" ("site_id" uuid not null, "day" date not null, "metric_set" text not null, "dimension" text not null, "value" text not null, "lane" text not null, "count" bigint not null default 0, "visitors" bigint not null default 0, primary key ("site_id", "day", "metric_set", "dimension", "value", "lane"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "pageviews" cascade;`);
    this.addSql(`drop table if exists "events" cascade;`);
    this.addSql(`drop table if exists "requests" cascade;`);
    this.addSql(`drop table if exists "daily_rollups" cascade;`);
  }
}
