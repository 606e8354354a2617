import { Migration } from '@mikro-orm/migrations';

/**
 * `alerts.created_by_token` and `email_reports.created_by_token`: the API token a rule or report was made (or an
 * alert last changed) with. Both outlived the token's revocation, so a leaked token's holder kept receiving the
 * site's figures through a webhook or an address of theirs; revoking a token now deletes them, as its shared links
 * (apps/api/src/features/tokens/revocation.ts). Those made before are left as they are.
 */
export class Migration20270104090000_made_with_token extends Migration {
  override name = 'Migration20270104090000_made_with_token';

  override up(): void | Promise<void> {
    this.addSql(`alter table "alerts" add column if not exists "created_by_token" uuid null;`);
    this.addSql(`alter table "email_reports" add column if not exists "created_by_token" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "alerts" drop column if exists "created_by_token";`);
    this.addSql(`alter table "email_reports" drop column if exists "created_by_token";`);
  }
}
