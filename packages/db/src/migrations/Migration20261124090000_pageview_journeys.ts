import { Migration } from '@mikro-orm/migrations';

/**
 * `pageviews.journeys`: false for a page whose script tag says `data-journeys="off"`; such pageviews
 * (and their events) are left out of journeys. `if not exists`, so a branch adding the same column in
 * its own migration leaves it defined once.
 */
export class Migration20261124090000_pageview_journeys extends Migration {
  override name = 'Migration20261124090000_pageview_journeys';

  override up(): void | Promise<void> {
    this.addSql(`alter table "pageviews" add column if not exists "journeys" boolean not null default true;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "pageviews" drop column if exists "journeys";`);
  }
}
