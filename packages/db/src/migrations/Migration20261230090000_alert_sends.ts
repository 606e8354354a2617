import { Migration } from '@mikro-orm/migrations';

/**
 * `alert_deliveries.sent_at`: when the fired period's e-mails were sent (null: not yet), and the webhook's
 * `pending` (to be sent). A run that stopped between claiming a delivery and sending it (a deploy's SIGTERM) left
 * the period looked at and nothing told; the next run now sends what is still unsent
 * (apps/api/src/features/alerts/check.ts, `unfinishedDeliveries`). Deliveries made before were sent then.
 */
export class Migration20261230090000_alert_sends extends Migration {
  override name = 'Migration20261230090000_alert_sends';

  override up(): void | Promise<void> {
    this.addSql(`alter table "alert_deliveries" add column if not exists "sent_at" timestamptz null;`);
    this.addSql(`update "alert_deliveries" set "sent_at" = "fired_at" where "sent_at" is null;`);
    this.addSql(`alter table "alert_deliveries" drop constraint if exists "alert_deliveries_webhook_check";`);
    this.addSql(
      `alter table "alert_deliveries" add constraint "alert_deliveries_webhook_check" check ("webhook" in ('none', 'pending', 'sent', 'failed'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`update "alert_deliveries" set "webhook" = 'failed' where "webhook" = 'pending';`);
    this.addSql(`alter table "alert_deliveries" drop constraint if exists "alert_deliveries_webhook_check";`);
    this.addSql(
      `alter table "alert_deliveries" add constraint "alert_deliveries_webhook_check" check ("webhook" in ('none', 'sent', 'failed'));`,
    );
    this.addSql(`alter table "alert_deliveries" drop column if exists "sent_at";`);
  }
}
