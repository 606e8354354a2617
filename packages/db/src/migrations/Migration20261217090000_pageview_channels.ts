import { Migration } from '@mikro-orm/migrations';

/**
 * A pageview's source (utm_source, else the referrer's family such as "Google", else the referrer's host;
 * up to 64 characters) and channel (Direct, Organic Search, …, up to 32), derived at intake
 * (docs/product/channels.md). Nullable without a default: a catalog change only; earlier pageviews read
 * as null and the stats catalogue derives both from their referrer and utm columns.
 */
export class Migration20261217090000_pageview_channels extends Migration {
  override name = 'Migration20261217090000_pageview_channels';

  override up(): void | Promise<void> {
    this.addSql(`alter table "pageviews" add column "source" text null, add column "channel" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "pageviews" drop column "source", drop column "channel";`);
  }
}
