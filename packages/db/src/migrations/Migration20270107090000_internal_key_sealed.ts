import { Migration } from '@mikro-orm/migrations';

/**
 * `sites.internal_key_enc`: the site's internal key (it signs the `us_internal` marks that put the team's own
 * visits in the internal lane) sealed with the app secret, like the pass key. It was stored in plain text, so
 * a reader of the database or a dump could forge marks and hide any visitor from the site's figures. Keys
 * stored before stay in `internal_key` until the service's next start seals them (apps/api/src/features/
 * internal-link/internal-key.ts); a migration cannot, as it does not have the app secret.
 */
export class Migration20270107090000_internal_key_sealed extends Migration {
  override name = 'Migration20270107090000_internal_key_sealed';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sites" add column if not exists "internal_key_enc" text null;`);
    this.addSql(`alter table "sites" alter column "internal_key" drop not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sites" drop column if exists "internal_key_enc";`);
  }
}
