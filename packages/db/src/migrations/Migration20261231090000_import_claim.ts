import { Migration } from '@mikro-orm/migrations';

/**
 * `imports.claim`: the run that holds a running import (a new value each time a run takes it). An import whose
 * node wrote nothing for two minutes is taken over by another; the first node, if it was only slow, now finds the
 * claim gone at its next batch and stops, instead of storing the same records again (its sums were added twice)
 * (apps/api/src/features/imports/imports-job.ts, `holdImport`).
 */
export class Migration20261231090000_import_claim extends Migration {
  override name = 'Migration20261231090000_import_claim';

  override up(): void | Promise<void> {
    this.addSql(`alter table "imports" add column if not exists "claim" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "imports" drop column if exists "claim";`);
  }
}
