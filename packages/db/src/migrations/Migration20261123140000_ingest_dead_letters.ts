import { Migration } from '@mikro-orm/migrations';

/**
 * `ingest_dead_letters`: rows the write path could not store (PostgreSQL refused them even after the
 * intake's cleaning), set aside with the reason so one bad row never blocks the rest of its batch.
 * The row is kept as JSON text (no IP address or user-agent is ever part of a row). Pruned after 30 days.
 */
export class Migration20261123140000_ingest_dead_letters extends Migration {
  override name = 'Migration20261123140000_ingest_dead_letters';

  override up(): void | Promise<void> {
    this.addSql(`create table "ingest_dead_letters" ("id" bigserial primary key, "table_name" text not null, "site_id" uuid null, "row_json" text not null, "reason" text not null, "created_at" timestamptz not null default now());`);
    this.addSql(`create index "ingest_dead_letters_site_id_created_at_index" on "ingest_dead_letters" ("site_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ingest_dead_letters";`);
  }
}
