import { Migration } from '@mikro-orm/migrations';

/**
 * Double opt-in for e-mail reports, and the addresses that asked for no more e-mail.
 *
 * `report_recipients`: one row per workspace and report address. A member adding a report to a new
 * address asks it (`asked_at`); the confirmation e-mail leaves within the mail budgets (`mailed_at`, null
 * while it waits for one), carrying a single-use link (its SHA-256 in `token_hash`) valid until
 * `expires_at`; `confirmed_at` once the address said yes. Reports go only to confirmed addresses, and
 * an address confirmed for a workspace is not asked again there.
 *
 * `mail_suppressions`: addresses that unsubscribed from a workspace's reports (or said no to its
 * confirmation): no report or invitation of that workspace is sent to them. Only a keyed hash of the
 * lower-cased address is kept (HMAC under a key derived from APP_SECRET), so the list can be compared
 * against but does not hold the addresses of people who asked to be left alone.
 *
 * Reports that exist already were never confirmed: their addresses are asked once, by the next run.
 */
export class Migration20261209090000_report_optin extends Migration {
  override name = 'Migration20261209090000_report_optin';

  override up(): void | Promise<void> {
    this.addSql(`create table "report_recipients" (
      "workspace_id" uuid not null references "workspaces" ("id") on delete cascade,
      "address" text not null,
      "asked_at" timestamptz not null default now(),
      "mailed_at" timestamptz null,
      "token_hash" text null unique,
      "expires_at" timestamptz null,
      "confirmed_at" timestamptz null,
      primary key ("workspace_id", "address")
    );`);
    this.addSql(`create table "mail_suppressions" (
      "workspace_id" uuid not null references "workspaces" ("id") on delete cascade,
      "address_key" text not null,
      "created_at" timestamptz not null default now(),
      primary key ("workspace_id", "address_key")
    );`);
    this.addSql(`insert into "report_recipients" ("workspace_id", "address")
      select distinct "workspace_id", "address" from "email_reports" on conflict do nothing;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "mail_suppressions";`);
    this.addSql(`drop table "report_recipients";`);
  }
}
