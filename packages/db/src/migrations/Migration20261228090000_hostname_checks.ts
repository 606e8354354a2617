import { Migration } from '@mikro-orm/migrations';

/**
 * `site_hostnames.ingress_checked_at`: when the proxy hostnames job last looked up a pending hostname's records.
 * Each run takes pending hostnames workspace by workspace, the least recently looked up first, so one
 * workspace's many pending hostnames hold back neither another's nor its own oldest ones
 * (apps/api/src/features/hostnames/ingress-job.ts).
 */
export class Migration20261228090000_hostname_checks extends Migration {
  override name = 'Migration20261228090000_hostname_checks';

  override up(): void | Promise<void> {
    this.addSql(`alter table "site_hostnames" add column if not exists "ingress_checked_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "site_hostnames" drop column if exists "ingress_checked_at";`);
  }
}
