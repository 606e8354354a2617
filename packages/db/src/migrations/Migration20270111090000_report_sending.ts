import { Migration } from '@mikro-orm/migrations';

/**
 * `email_reports.sending_until`: a run's claim on a report's period, a lease. The claim moved `last_period_start`
 * before the e-mail went, so a process stopped between the two (a deploy, a crash, Redis gone before the send) lost
 * that week's or month's report for good. Now the period moves only once the e-mail went, and a claim whose run
 * stopped lapses: a later run sends it.
 */
export class Migration20270111090000_report_sending extends Migration {
  override name = 'Migration20270111090000_report_sending';

  override up(): void | Promise<void> {
    this.addSql(`alter table "email_reports" add column if not exists "sending_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "email_reports" drop column if exists "sending_until";`);
  }
}
