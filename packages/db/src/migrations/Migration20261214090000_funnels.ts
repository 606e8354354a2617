import { Migration } from '@mikro-orm/migrations';

/**
 * Funnels: per site, named lists of 2 to 8 ordered steps (`steps`: `[{ type, match }]`, validated at the
 * door by the shared schema). A control-plane table: plain PostgreSQL on a Citus coordinator too.
 */
export class Migration20261214090000_funnels extends Migration {
  override name = 'Migration20261214090000_funnels';

  override up(): void | Promise<void> {
    this.addSql(`create table "funnels" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "name" text not null,
      "steps" jsonb not null,
      "created_at" timestamptz not null default now()
    );`);
    this.addSql(`create index "funnels_site_idx" on "funnels" ("site_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "funnels";`);
  }
}
