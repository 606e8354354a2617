import { Migration } from '@mikro-orm/migrations';

/**
 * Sites' time zones in PostgreSQL's spelling. A zone the runtime lists under another name (`Asia/Ho_Chi_Minh`,
 * `US/Eastern`) was kept in the letter case it was typed in; the rollup and retention jobs match zones by
 * PostgreSQL's spelling, so such a site was never rolled up and its raw days were dropped with nothing kept.
 * New names are stored in that spelling (apps/api/src/features/sites/sites.ts); this mends the names stored before.
 */
export class Migration20270108090000_site_zone_spelling extends Migration {
  override name = 'Migration20270108090000_site_zone_spelling';

  override up(): void | Promise<void> {
    this.addSql(`update "sites" s set "timezone" = z.name
      from (select distinct on (lower(name)) name from pg_timezone_names order by lower(name), name) z
      where lower(s."timezone") = lower(z.name) and s."timezone" <> z.name;`);
  }

  override down(): void | Promise<void> {
    // Nothing to undo: each name still means the same zone.
  }
}
