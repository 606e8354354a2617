import { Migration } from '@mikro-orm/migrations';

/**
 * Custom properties of pageviews and events (issue 40, item 2): up to 30 key → text pairs the page sent,
 * cleaned at intake (`cleanProperties` in shared). Nullable without a default: a catalog change only; rows
 * without properties (and every earlier row) hold null. Kept like the rest of the raw rows (90 days).
 */
export class Migration20261218090000_properties extends Migration {
  override name = 'Migration20261218090000_properties';

  override up(): void | Promise<void> {
    for (const table of ['pageviews', 'events']) {
      this.addSql(`alter table "${table}" add column "props" jsonb null;`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['pageviews', 'events']) {
      this.addSql(`alter table "${table}" drop column "props";`);
    }
  }
}
