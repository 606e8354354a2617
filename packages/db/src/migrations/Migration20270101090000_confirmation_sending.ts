import { Migration } from '@mikro-orm/migrations';

/**
 * `report_recipients.sending_until`: while a confirmation e-mail is being sent, until when its claim holds
 * (null once sent). A process that stopped between claiming an address and mailing it (a deploy's SIGTERM)
 * left the address claimed and unmailed, so it waited out the link's 7 days for nothing; the reports job now
 * sends a confirmation whose claim lapsed (apps/api/src/features/reports/confirmation.ts). Claims made before
 * are taken as sent.
 */
export class Migration20270101090000_confirmation_sending extends Migration {
  override name = 'Migration20270101090000_confirmation_sending';

  override up(): void | Promise<void> {
    this.addSql(`alter table "report_recipients" add column if not exists "sending_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "report_recipients" drop column if exists "sending_until";`);
  }
}
