import { Migration } from '@mikro-orm/migrations';

/**
 * `result_days.packed`: binary figures beside the JSON `rows`, for entries too large to read as JSON on
 * every ask (the summed span of a month of journey groups: ~10^6 groups as 32-bit label numbers, with
 * the names in `rows`). Empty for every other entry.
 */
export class Migration20261127090000_result_packed extends Migration {
  override name = 'Migration20261127090000_result_packed';

  override up(): void | Promise<void> {
    this.addSql(`alter table "result_days" add column "packed" bytea;`);
    // Spans stored before this change hold JSON rows only: they are rebuilt on the next ask.
    this.addSql(`delete from "result_days" where "kind" like '%-span';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "result_days" drop column "packed";`);
  }
}
