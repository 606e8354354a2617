import { Migration } from '@mikro-orm/migrations';

/**
 * `exports`: one row per site export (POST /v1/sites/{id}/export). Download links name the export and
 * are signed with the app secret; a link whose export row is gone (deleted with its site, or a day after
 * it was made) is 404, like a link no export made. `archive` holds the listing of raw-record files
 * (kind, hour, records) so each file's download reads exactly that hour.
 */
export class Migration20261128090000_exports extends Migration {
  override name = 'Migration20261128090000_exports';

  override up(): void | Promise<void> {
    this.addSql(`create table "exports" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "workspace_id" uuid not null,
      "created_at" timestamptz not null default now(),
      "range_from" date null,
      "range_to" date not null,
      "archive" jsonb not null
    );`);
    this.addSql(`create index "exports_site_id_created_at_index" on "exports" ("site_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "exports";`);
  }
}
