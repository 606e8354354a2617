import { Migration } from '@mikro-orm/migrations';

/**
 * The page script's per-tab page counter (spec §1 "tab page counter"): 1 where a visit began in the tab,
 * 2 for the next page, and so on. Kept within 1-10,000 (`columns.ts`: a counter past that is stored as
 * null, never refused). Nullable without a default: a catalog change only, and every earlier pageview
 * reads as unknown (only `session_start` was stored for them).
 */
export class Migration20261212090000_pageview_tab_page extends Migration {
  override name = 'Migration20261212090000_pageview_tab_page';

  override up(): void | Promise<void> {
    this.addSql(`alter table "pageviews" add column "tab_page" smallint null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "pageviews" drop column "tab_page";`);
  }
}
