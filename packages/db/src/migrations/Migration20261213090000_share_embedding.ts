import { Migration } from '@mikro-orm/migrations';

/**
 * Whether a shared link's view may be shown in a frame on the site's own hostnames (its HTML then says
 * so in `frame-ancestors`). Off for every existing link: embedding is the owner's choice, never a default.
 */
export class Migration20261213090000_share_embedding extends Migration {
  override name = 'Migration20261213090000_share_embedding';

  override up(): void | Promise<void> {
    this.addSql(`alter table "share_links" add column "allow_embedding" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "share_links" drop column "allow_embedding";`);
  }
}
