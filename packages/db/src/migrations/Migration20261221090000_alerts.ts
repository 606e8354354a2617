import { Migration } from '@mikro-orm/migrations';

/**
 * Alerts (docs/product/alerts.md): per site, rules that e-mail confirmed addresses, and optionally POST a
 * signed webhook, when traffic spikes or drops, a goal's conversions fall, or the first pageview arrives.
 * Control-plane tables like the other site tables: plain PostgreSQL on a Citus coordinator too.
 *
 * `alerts.last_period`: the last period (local hour `YYYY-MM-DDTHH:00`, day `YYYY-MM-DD`, or `first`)
 * the job looked at, so each period is looked at once. `webhook_secret` is sealed with a key derived from
 * APP_SECRET (core/security/cipher.ts).
 *
 * `alert_recipients`: the rule's addresses; consent is the workspace's (`report_recipients`), as for
 * e-mail reports. `alert_deliveries`: one row per rule and period that fired, inserted before anything is
 * sent: the unique key is what makes two API nodes never both send one period. Its time is kept to the
 * millisecond, as the deliveries' page cursor carries it.
 */
export class Migration20261221090000_alerts extends Migration {
  override name = 'Migration20261221090000_alerts';

  override up(): void | Promise<void> {
    this.addSql(`create table "alerts" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "workspace_id" uuid not null,
      "kind" text not null check ("kind" in ('traffic_spike', 'traffic_drop', 'goal_drop', 'first_pageview')),
      "threshold_percent" int null,
      "goal" text null,
      "time_window" text not null check ("time_window" in ('hour', 'day')),
      "webhook_url" text null,
      "webhook_secret" text null,
      "enabled" boolean not null default true,
      "created_by" uuid null,
      "created_at" timestamptz not null default now(),
      "last_period" text null,
      "last_fired_at" timestamptz null
    );`);
    this.addSql(`create index "alerts_site_idx" on "alerts" ("site_id", "created_at");`);
    this.addSql(`create table "alert_recipients" (
      "id" uuid primary key,
      "alert_id" uuid not null references "alerts" ("id") on delete cascade,
      "workspace_id" uuid not null references "workspaces" ("id") on delete cascade,
      "address" text not null,
      unique ("alert_id", "address")
    );`);
    this.addSql(`create index "alert_recipients_address_idx" on "alert_recipients" ("workspace_id", "address");`);
    this.addSql(`create table "alert_deliveries" (
      "id" uuid primary key,
      "alert_id" uuid not null references "alerts" ("id") on delete cascade,
      "period" text not null,
      "fired_at" timestamptz not null default date_trunc('milliseconds', now()),
      "current" double precision not null,
      "baseline" double precision null,
      "mails" int not null default 0,
      "mails_held" int not null default 0,
      "webhook" text not null default 'none' check ("webhook" in ('none', 'sent', 'failed')),
      "webhook_status" int null,
      unique ("alert_id", "period")
    );`);
    this.addSql(`create index "alert_deliveries_fired_idx" on "alert_deliveries" ("alert_id", "fired_at" desc, "id" desc);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "alert_deliveries";`);
    this.addSql(`drop table "alert_recipients";`);
    this.addSql(`drop table "alerts";`);
  }
}
