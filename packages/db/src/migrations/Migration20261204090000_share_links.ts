import { Migration } from '@mikro-orm/migrations';

/**
 * Shared links: a read-only view of one site's dashboard for whoever holds the link. The link's secret
 * is kept as its SHA-256 (looked up when opened) and sealed with the app secret (so the owner can copy
 * the link again); an optional password is kept as its scrypt hash. Revoking deletes the row, which
 * ends every view opened with it at the next request.
 */
export class Migration20261204090000_share_links extends Migration {
  override name = 'Migration20261204090000_share_links';

  override up(): void | Promise<void> {
    this.addSql(`create table "share_links" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "workspace_id" uuid not null,
      "label" text not null,
      "token_hash" text not null unique,
      "token_enc" text not null,
      "password_hash" text null,
      "created_by" uuid null,
      "created_at" timestamptz not null default now(),
      "last_opened_at" timestamptz null
    );`);
    this.addSql(`create index "share_links_site_idx" on "share_links" ("site_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "share_links";`);
  }
}
