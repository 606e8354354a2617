import { Migration } from '@mikro-orm/migrations';

/**
 * `alert_recipients.unsubscribed_at`: an address that took itself off one alert rule stays on it as a row marked
 * so, instead of being deleted. Deleted, a later change of the rule that listed the address again (a dashboard
 * form sending the list it had) put it back, and alerts went to it again with no new consent (its consent is the
 * workspace's). A marked row is never sent to and cannot be added again.
 */
export class Migration20270110090000_alert_optouts extends Migration {
  override name = 'Migration20270110090000_alert_optouts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "alert_recipients" add column if not exists "unsubscribed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "alert_recipients" drop column if exists "unsubscribed_at";`);
  }
}
