import { Migration } from '@mikro-orm/migrations';

/**
 * - `page_leaves`: the leave report of a pageview (scroll depth, visible time, interaction), a raw table
 *   partitioned by day like the others, joined to `pageviews` on (site_id, pageview_id). Rows stay
 *   append-only; the unused leave columns on `pageviews` go.
 * - `usage_months`: per-workspace monthly counters of human pageviews and server requests (allowances),
 *   plus which Free notices were sent.
 * - `rollup_days`: which (site, local day) pairs are in `daily_rollups`, so the job never redoes a day.
 * - `sites.retention_days`: optional per-site retention (null = kept while the account exists).
 */
export class Migration20261123013000_leaves_usage_rollups extends Migration {
  override name = 'Migration20261123013000_leaves_usage_rollups';

  override up(): void | Promise<void> {
    this.addSql(`create table "page_leaves" ("site_id" uuid not null, "day" date not null, "id" uuid not null, "at" timestamptz not null, "pageview_id" text not null, "lane" text not null, "scroll_depth" smallint not null, "time_on_page_ms" int not null, "interacted" boolean not null, primary key ("site_id", "day", "id")) partition by range ("day");`);
    this.addSql(`create index "page_leaves_site_id_pageview_id_index" on "page_leaves" ("site_id", "pageview_id");`);
    this.addSql(`alter table "pageviews" drop column "scroll_depth", drop column "time_on_page_ms", drop column "interacted";`);
    // Partitions of page_leaves for days that already have pageviews partitions.
    this.addSql(`do $$
      declare r record;
      begin
        for r in select c.relname as child from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
                  where p.relname = 'pageviews' and c.relname ~ '^pageviews_p[0-9]{8}$' loop
          execute format('create table if not exists %I partition of "page_leaves" for values from (%L) to (%L)',
            replace(r.child, 'pageviews_', 'page_leaves_'),
            to_date(substr(r.child, 12), 'YYYYMMDD'),
            to_date(substr(r.child, 12), 'YYYYMMDD') + 1);
        end loop;
      end $$;`);

    this.addSql(`create table "usage_months" ("workspace_id" uuid not null, "month" date not null, "pageviews" bigint not null default 0, "requests" bigint not null default 0, "notified" text[] not null default '{}', "updated_at" timestamptz not null default now(), primary key ("workspace_id", "month"));`);
    this.addSql(`create table "rollup_days" ("site_id" uuid not null, "day" date not null, "rolled_at" timestamptz not null default now(), primary key ("site_id", "day"));`);
    this.addSql(`alter table "sites" add column "retention_days" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "page_leaves" cascade;`);
    this.addSql(`alter table "pageviews" add column "scroll_depth" smallint null, add column "time_on_page_ms" int null, add column "interacted" boolean null;`);
    this.addSql(`drop table if exists "usage_months" cascade;`);
    this.addSql(`drop table if exists "rollup_days" cascade;`);
    this.addSql(`alter table "sites" drop column "retention_days";`);
  }
}
