import { Migration } from '@mikro-orm/migrations';

/**
 * `invites.created_by_token`: the API token an invitation was made with (null: in a session). A pending invitation
 * outlived the revocation of the token that made it (and the removal of the member who made it), so a leaked token
 * with members:write could invite an address of its holder's and that address joined after the token was revoked.
 * Revoking a token now withdraws its pending invitations (apps/api/src/features/tokens/revocation.ts).
 */
export class Migration20270105090000_invite_token extends Migration {
  override name = 'Migration20270105090000_invite_token';

  override up(): void | Promise<void> {
    this.addSql(`alter table "invites" add column if not exists "created_by_token" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invites" drop column if exists "created_by_token";`);
  }
}
