// Where rollup figures are read from: the site's daily rollups and, beside them, its imported history
// (`imported_rollups`, the same format plus the import; features/imports). Imported days never hold native
// data (an import skips such days), so the two add up without counting a day twice. The site and days are
// written into both sides, so each reads one site's rows (on Citus: one worker). A running import's rows wait in
// the lane IMPORTING_LANE, read by no question, until the import is done: then they replace the earlier imports'
// figures of their days at once.
import type { ImportedMeta, ImportSourceName } from '@us/shared';
import type { DayRange } from './range.ts';
import { run } from './runner.ts';
import type { SiteCtx } from './site-ctx.ts';
import { Params, statement } from './sql.ts';

const COLUMNS = 'site_id, day, metric_set, dimension, value, lane, count, visitors';

/** The lane of an import's figures until the import is done (features/imports): no answer reads them. */
export const IMPORTING_LANE = 'importing';
/** The imported figures answers read: those of imports that are done. */
export const IMPORTED_DONE = `lane <> '${IMPORTING_LANE}'`;

/**
 * The rollup rows of a site and days, as a subquery to alias (`from ${rollupSource(...)} r`); `site`,
 * `from` and `to` are bind placeholders. `imported` false: the site's own rollups only (a question the
 * imported figures cannot answer, e.g. a pair of dimensions they do not keep).
 */
export function rollupSource(site: string, from: string, to: string, imported = true): string {
  const own = `select ${COLUMNS} from daily_rollups where site_id = ${site} and day between ${from} and ${to}`;
  if (!imported) return `(${own})`;
  return `(${own}
      union all
      select ${COLUMNS} from imported_rollups where site_id = ${site} and day between ${from} and ${to} and ${IMPORTED_DONE})`;
}

/** Imported history's rows alone, as `rollupSource`'s: for days of the raw window that had no data of their own. */
export function importedSource(site: string, from: string, to: string): string {
  return `(select ${COLUMNS} from imported_rollups where site_id = ${site} and day between ${from} and ${to} and ${IMPORTED_DONE})`;
}

/** The days of `r` with imported figures and the sources they came from, or undefined when there are none. */
export async function importedMeta(ctx: SiteCtx, r: DayRange, included: boolean): Promise<ImportedMeta | undefined> {
  const p = new Params();
  const [days] = await run(
    ctx.em,
    statement<{ days: number; ids: string[] | null }>(
      `select count(distinct day)::int as days, array_agg(distinct import_id::text) as ids
       from imported_rollups
       where site_id = ${p.add(ctx.siteId, 'uuid')} and day between ${p.add(r.from, 'date')} and ${p.add(r.to, 'date')}
         and ${IMPORTED_DONE}`,
      p,
    ),
  );
  if (!days?.days) return undefined;
  const q = new Params();
  const sources = await run(
    ctx.em,
    statement<{ source: ImportSourceName }>(
      `select distinct source from imports where id = any(${q.add(days.ids ?? [], 'uuid[]')}) order by source`,
      q,
    ),
  );
  return { days: days.days, sources: sources.map((s) => s.source), included };
}
