import { Migration } from '@mikro-orm/migrations';

/**
 * Pageviews of pages with `data-journeys="off"` (the page script's `j: 1`) are kept out of journeys:
 * `journeys` is false for them. A constant default on the partitioned parent is a catalog change only
 * (no partition is rewritten); every existing pageview reads as true.
 */
export class Migration20261124090000_pageview_journeys extends Migration {
  override name = 'Migration20261124090000_pageview_journeys';

  override up(): void | Promise<void> {
    this.addSql(`alter table "pageviews" add column "journeys" boolean not null default true;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "pageviews" drop column "journeys";`);
  }
}
