import { Migration } from '@mikro-orm/migrations';

/**
 * Segments (named sets of dashboard filters, `filters`: `{ dimension: value }`) and annotations (a day and a
 * text on the chart), per site. Control-plane tables: plain PostgreSQL on a Citus coordinator too. A segment's
 * name is unique on its site whatever its case, so one name applies one segment.
 */
export class Migration20261215090000_segments_annotations extends Migration {
  override name = 'Migration20261215090000_segments_annotations';

  override up(): void | Promise<void> {
    this.addSql(`create table "segments" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "name" text not null,
      "filters" jsonb not null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now()
    );`);
    this.addSql(`create unique index "segments_site_name_idx" on "segments" ("site_id", lower("name"));`);
    this.addSql(`create table "annotations" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "day" date not null,
      "text" text not null,
      "created_at" timestamptz not null default now()
    );`);
    this.addSql(`create index "annotations_site_day_idx" on "annotations" ("site_id", "day" desc, "id" desc);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "annotations";`);
    this.addSql(`drop table "segments";`);
  }
}
