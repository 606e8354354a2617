import { Migration } from '@mikro-orm/migrations';

/**
 * `share_links.created_by_token`: the API token a link was made with (null: made in a session). A link outlived
 * the revocation of the token that made it, so a leaked token's holder kept reading the site through links made
 * with it; revoking a token now deletes them (apps/api/src/features/tokens/revocation.ts). Links made before are
 * left as they are.
 */
export class Migration20270102090000_share_link_token extends Migration {
  override name = 'Migration20270102090000_share_link_token';

  override up(): void | Promise<void> {
    this.addSql(`alter table "share_links" add column if not exists "created_by_token" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "share_links" drop column if exists "created_by_token";`);
  }
}
