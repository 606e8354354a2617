import { Migration } from '@mikro-orm/migrations';

/**
 * Search pulls made whole. `search_connections.backfilled_at`: when a pull of the last twelve weeks succeeded
 * for what is connected now; null until one does (the first pull, and the first after a stop or a connect,
 * ask for twelve weeks until one succeeds: a first pull that failed once was followed by two-week pulls for
 * good). `search_weeks.property`: the property (Bing: the site) a week was pulled from; connecting another
 * deletes the weeks of any other (they were merged into the new one's). Both tables are control-plane tables,
 * plain PostgreSQL on a Citus coordinator too (packages/db/src/citus.ts).
 *
 * Existing connections count as made whole when a week is stored from before the week ten weeks ahead of
 * their connection (a pull of two weeks never reaches so far back), unless their pulls are stopped. Existing
 * weeks take their connection's property; those of a disconnected source keep none (not known).
 */
export class Migration20270109090000_search_backfill extends Migration {
  override name = 'Migration20270109090000_search_backfill';

  override up(): void | Promise<void> {
    this.addSql(`alter table "search_connections" add column "backfilled_at" timestamptz null;`);
    this.addSql(`update "search_connections" c set "backfilled_at" = c."last_pull_at"
      where c."access" = 'ok' and c."last_pull_at" is not null and exists (
        select 1 from "search_weeks" w where w."site_id" = c."site_id" and w."source" = c."source"
          and w."week" <= (date_trunc('week', c."connected_at" at time zone 'UTC') - interval '10 weeks')::date);`);
    this.addSql(`alter table "search_weeks" add column "property" text null;`);
    this.addSql(`update "search_weeks" w set "property" = c."property" from "search_connections" c
      where c."site_id" = w."site_id" and c."source" = w."source";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "search_weeks" drop column "property";`);
    this.addSql(`alter table "search_connections" drop column "backfilled_at";`);
  }
}
