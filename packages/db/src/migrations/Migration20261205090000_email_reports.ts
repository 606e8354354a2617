import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail reports: a site's headline figures for the last full week or month, sent to chosen addresses.
 * `last_period_start` is the first day (site time zone) of the last period sent (or, for a new report, of
 * the last period closed before it was set up), so each period is sent once.
 */
export class Migration20261205090000_email_reports extends Migration {
  override name = 'Migration20261205090000_email_reports';

  override up(): void | Promise<void> {
    this.addSql(`create table "email_reports" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "workspace_id" uuid not null,
      "address" text not null,
      "frequency" text not null check ("frequency" in ('weekly', 'monthly')),
      "created_by" uuid null,
      "created_at" timestamptz not null default now(),
      "last_period_start" date not null,
      "last_sent_at" timestamptz null,
      unique ("site_id", "address", "frequency")
    );`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "email_reports";`);
  }
}
