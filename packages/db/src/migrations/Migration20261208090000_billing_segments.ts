import { Migration } from '@mikro-orm/migrations';

/**
 * Plan segments within a month (docs/product/billing.md, "Month end"):
 * - `billing_segments`: each stretch of a UTC month a workspace spent on one plan, closed by a plan change
 *   (or by the month closing): when it ran and what the month's counters grew by in it, and the most
 *   proxy-mode hostnames held in it. A month's overage is priced from its paid segments.
 * - `usage_months.segment_proxy_peak`: the most proxy-mode hostnames held since the running segment began.
 * - `billing_accounts.past_due_since`: when the subscription's payment first failed (grace period), cleared
 *   once it is paid again.
 */
export class Migration20261208090000_billing_segments extends Migration {
  override name = 'Migration20261208090000_billing_segments';

  override up(): void | Promise<void> {
    this.addSql(`create table "billing_segments" (
      "id" bigserial primary key,
      "workspace_id" uuid not null references "workspaces" ("id") on delete cascade,
      "month" date not null,
      "plan" text not null,
      "started_at" timestamptz not null,
      "ended_at" timestamptz not null,
      "pageviews" bigint not null,
      "requests" bigint not null,
      "proxies" int not null
    );`);
    this.addSql(`create index "billing_segments_workspace_month_index" on "billing_segments" ("workspace_id", "month");`);
    this.addSql(`alter table "usage_months" add column "segment_proxy_peak" int not null default 0;`);
    // No segment is closed yet: each month's running segment has held the month's peak.
    this.addSql(`update "usage_months" set "segment_proxy_peak" = "proxy_peak";`);
    this.addSql(`alter table "billing_accounts" add column "past_due_since" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "billing_accounts" drop column "past_due_since";`);
    this.addSql(`alter table "usage_months" drop column "segment_proxy_peak";`);
    this.addSql(`drop table "billing_segments";`);
  }
}
