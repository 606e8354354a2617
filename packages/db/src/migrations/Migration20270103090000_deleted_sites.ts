import { Migration } from '@mikro-orm/migrations';

/**
 * `deleted_sites`: a deleted site's id, kept while its analytics rows are purged. The analytics tables keep no
 * foreign key to `sites` (they are distributed on Citus), so deleting a site left its raw rows until their
 * partitions were dropped and its rollups and imported history for good. The purge job
 * (apps/api/src/analytics/rollup/retention.ts, `purgeDeletedSites`) empties each, then forgets the id a week later.
 */
export class Migration20270103090000_deleted_sites extends Migration {
  override name = 'Migration20270103090000_deleted_sites';

  override up(): void | Promise<void> {
    this.addSql(`create table if not exists "deleted_sites" (
      "site_id" uuid primary key,
      "deleted_at" timestamptz not null default now()
    );`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "deleted_sites";`);
  }
}
