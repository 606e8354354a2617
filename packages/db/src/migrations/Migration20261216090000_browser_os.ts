import { Migration } from '@mikro-orm/migrations';

/**
 * Browser and operating system of pageviews and events, beside `device` (issue 40, item 5): a name from a
 * short list (≤ 32 characters, `columns.ts`) and its major version (0-999, else null), derived from the
 * user agent and client hints at intake; the user-agent string itself is still never stored. Nullable
 * without a default: a catalog change only, and every earlier row reads as unknown.
 */
export class Migration20261216090000_browser_os extends Migration {
  override name = 'Migration20261216090000_browser_os';

  override up(): void | Promise<void> {
    for (const table of ['pageviews', 'events']) {
      this.addSql(
        `alter table "${table}" add column "browser" text null, add column "browser_major" smallint null, add column "os" text null, add column "os_major" smallint null;`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['pageviews', 'events']) {
      this.addSql(
        `alter table "${table}" drop column "browser", drop column "browser_major", drop column "os", drop column "os_major";`,
      );
    }
  }
}
