import { Migration } from '@mikro-orm/migrations';

/**
 * History imports (issue 40, item 6; docs/product/imports.md):
 * - `imports`: one per import of a site: its source, status, progress, the first bad rows, the days it
 *   covers, skipped (native data there) and replaced (an earlier import's), and where a stopped run resumes
 *   (`checkpoint`: the file and the last line stored). A control-plane table, like funnels.
 * - `import_files` and `import_file_chunks`: the uploaded files, kept in the database in chunks until the
 *   job has read them (any node may run the job), then deleted.
 * - `imported_rollups`: the imported figures, in exactly the format of `daily_rollups` plus `import_id`.
 * - `import_staged`: per-record figures (Umami's events) summed and counted by visit when every file is
 *   read (with the file each came from); emptied once aggregated.
 * The last two are analytics tables keyed by site and day: distributed by `site_id` on Citus (citus.ts).
 */
export class Migration20261219090000_imports extends Migration {
  override name = 'Migration20261219090000_imports';

  override up(): void | Promise<void> {
    this.addSql(`create table "imports" (
      "id" uuid primary key,
      "site_id" uuid not null references "sites" ("id") on delete cascade,
      "source" text not null,
      "status" text not null default 'awaiting_files',
      "created_at" timestamptz not null default now(),
      "started_at" timestamptz null,
      "finished_at" timestamptz null,
      "rows_read" bigint not null default 0,
      "rows_stored" bigint not null default 0,
      "bad_rows" bigint not null default 0,
      "bad_samples" jsonb not null default '[]',
      "day_from" date null,
      "day_to" date null,
      "skipped_days" jsonb not null default '[]',
      "replaced_days" jsonb not null default '[]',
      "checkpoint" jsonb null,
      "error" text null,
      "heartbeat_at" timestamptz null
    );`);
    this.addSql(`create index "imports_site_idx" on "imports" ("site_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "imports_due_idx" on "imports" ("created_at") where "status" in ('queued', 'running');`);
    this.addSql(`create table "import_files" (
      "import_id" uuid not null references "imports" ("id") on delete cascade,
      "name" text not null,
      "bytes" bigint not null default 0,
      "complete" boolean not null default false,
      primary key ("import_id", "name")
    );`);
    this.addSql(`create table "import_file_chunks" (
      "import_id" uuid not null,
      "name" text not null,
      "seq" int not null,
      "data" bytea not null,
      primary key ("import_id", "name", "seq"),
      foreign key ("import_id", "name") references "import_files" ("import_id", "name") on delete cascade
    );`);
    this.addSql(`create table "imported_rollups" (
      "site_id" uuid not null, "day" date not null, "metric_set" text not null, "dimension" text not null,
      "value" text not null, "lane" text not null, "count" bigint not null default 0, "visitors" bigint not null default 0,
      "import_id" uuid not null,
      primary key ("site_id", "day", "metric_set", "dimension", "value", "lane", "import_id")
    );`);
    this.addSql(`create index "imported_rollups_import_idx" on "imported_rollups" ("site_id", "import_id");`);
    // Logged: a crashed PostgreSQL empties unlogged tables, and these records may stand for files already read.
    this.addSql(`create table "import_staged" (
      "site_id" uuid not null, "import_id" uuid not null, "file" text not null, "day" date not null,
      "metric_set" text not null, "dimension" text not null, "value" text not null, "visit_key" text not null,
      "count" bigint not null
    );`);
    this.addSql(`create index "import_staged_import_idx" on "import_staged" ("site_id", "import_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "import_staged";`);
    this.addSql(`drop table "imported_rollups";`);
    this.addSql(`drop table "import_file_chunks";`);
    this.addSql(`drop table "import_files";`);
    this.addSql(`drop table "imports";`);
  }
}
