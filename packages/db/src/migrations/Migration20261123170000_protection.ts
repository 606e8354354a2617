import { Migration } from '@mikro-orm/migrations';

/**
 * Bot protection: each site's pass key (signs `us_pass` and the check's return tickets; encrypted with the
 * app secret), and each request record's risk beside the decision and reason it already had room for.
 */
export class Migration20261123170000_protection extends Migration {
  override name = 'Migration20261123170000_protection';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sites" add column "pass_key_enc" text null;`);
    this.addSql(`alter table "requests" add column "risk" smallint null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "requests" drop column "risk";`);
    this.addSql(`alter table "sites" drop column "pass_key_enc";`);
  }
}
