import { Migration } from '@mikro-orm/migrations';

/** `search_weeks.top`: the week's ten pages and ten queries with the most clicks, where the source gives them. */
export class Migration20261130090000_search_top extends Migration {
  override name = 'Migration20261130090000_search_top';

  override up(): void | Promise<void> {
    this.addSql(`alter table "search_weeks" add column "top" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "search_weeks" drop column "top";`);
  }
}
