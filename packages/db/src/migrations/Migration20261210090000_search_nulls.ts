import { Migration } from '@mikro-orm/migrations';

/**
 * Search, issue 37. `search_connections.access`: whether delegated access still holds (checked before
 * every pull; `access-lost` and `hostname-unverified` stop the pulls). `search_weeks`: weeks the earlier
 * pull stored as 0 clicks and 0 impressions with no pages or queries were weeks the provider reported
 * nothing for (it could not tell them apart), so they become null, "not collected" (spec §2); links,
 * a separate count, stay. Down drops the column; the nulls stay (zero was never measured).
 */
export class Migration20261210090000_search_nulls extends Migration {
  override name = 'Migration20261210090000_search_nulls';

  override up(): void | Promise<void> {
    this.addSql(`alter table "search_connections" add column "access" text not null default 'ok'
      check ("access" in ('ok', 'access-lost', 'hostname-unverified'));`);
    this.addSql(`update "search_weeks" set "clicks" = null, "impressions" = null, "ctr" = null, "position" = null,
      "pages" = null, "queries" = null, "top" = null
      where "clicks" = 0 and "impressions" = 0 and coalesce("pages", 0) = 0 and coalesce("queries", 0) = 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "search_connections" drop column "access";`);
  }
}
