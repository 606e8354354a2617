import { Migration } from '@mikro-orm/migrations';

/**
 * Billing through the payment provider (docs/product/billing.md, "Billing"):
 * - `billing_accounts`: per workspace, its provider customer and subscription (ids only: no card data is
 *   ever here), the subscription's interval and status, and the provider time of the last subscription
 *   event applied (older events arriving late are not applied over newer ones).
 * - `billing_events`: ids of provider webhook events already applied, so a redelivery changes nothing.
 * - `billing_months`: each closed month of a workspace with the plan it ended on, what it used and the
 *   overage that costs, and whether that was reported to the provider (once: the row is the claim).
 * - `usage_months.proxy_peak`: the most proxy-mode hostnames the workspace held at once that month.
 */
export class Migration20261201090000_billing extends Migration {
  override name = 'Migration20261201090000_billing';

  override up(): void | Promise<void> {
    this.addSql(`create table "billing_accounts" (
      "workspace_id" uuid primary key references "workspaces" ("id") on delete cascade,
      "customer_id" text not null unique,
      "subscription_id" text null,
      "interval" text null check ("interval" in ('month', 'year')),
      "status" text null,
      "period_end" timestamptz null,
      "event_at" timestamptz null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now()
    );`);
    this.addSql(`create table "billing_events" (
      "id" text primary key,
      "type" text not null,
      "received_at" timestamptz not null default now()
    );`);
    this.addSql(`create table "billing_months" (
      "workspace_id" uuid not null references "workspaces" ("id") on delete cascade,
      "month" date not null,
      "plan" text not null,
      "pageviews" bigint not null,
      "requests" bigint not null,
      "proxies" int not null,
      "amount_cents" int not null,
      "state" text not null check ("state" in ('none', 'pending', 'reported')),
      "item_id" text null,
      "attempts" int not null default 0,
      "last_error" text null,
      "closed_at" timestamptz not null default now(),
      "reported_at" timestamptz null,
      primary key ("workspace_id", "month")
    );`);
    this.addSql(`create index "billing_months_pending_index" on "billing_months" ("state") where "state" = 'pending';`);
    this.addSql(`alter table "usage_months" add column "proxy_peak" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "usage_months" drop column "proxy_peak";`);
    this.addSql(`drop table "billing_months";`);
    this.addSql(`drop table "billing_events";`);
    this.addSql(`drop table "billing_accounts";`);
  }
}
