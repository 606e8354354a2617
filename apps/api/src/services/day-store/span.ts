// The sum of a run of stored days as one entry (`result_days` with kind `<kind>-span`, keyed by the
// days' own specs, filed under the run's last day). For journeys, whose days hold ~10^4 groups each:
// an ask then reads one summed entry for the older days instead of summing a month of days again.
// The entry carries the arrivals version of each of its days and is used only while all of them still
// match; it is built from exact days only (never from a large live day's minute-old figures), so a
// matching version always means matching figures. Building a span deletes the site's older spans of the
// kind, so one run of days is kept per definition, not one per day asked.
import { createHash } from 'node:crypto';
import type { SiteCtx } from '../stats/site-ctx.ts';
import type { GatherOptions } from './gather.ts';
import { specOf } from './spec.ts';
import { arrivalsOf, type StoreKind } from './store.ts';

interface SpanEntry<Row> {
  /** `day:version` of every day of the span, in order. */
  versions: string;
  rows: Row[];
}

/**
 * The summed rows of `days` (sorted), from the span entry when it is current; else `gather` (called with
 * options that read exact days only), `sum`, and the result stored as the span.
 */
export async function spanRows<Row>(
  ctx: SiteCtx,
  kind: StoreKind,
  definition: unknown,
  days: readonly string[],
  gather: (opts: GatherOptions) => Promise<Row[]>,
  sum: (rows: readonly Row[]) => Row[],
): Promise<Row[]> {
  const last = days.at(-1);
  if (last === undefined) return [];
  const spanKind = `${kind}-span`;
  const spec = createHash('sha256')
    .update(JSON.stringify(days.map((d) => specOf([kind, definition], ctx.windows, d))))
    .digest('base64url')
    .slice(0, 32);
  // Versions before the figures: rows arriving meanwhile make the span outdated, never wrongly current.
  const arrivals = await arrivalsOf(ctx.em, ctx.siteId, days);
  const versions = days.map((d) => `${d}:${arrivals.get(d) ?? 0}`).join(',');
  const conn = ctx.em.getConnection();
  const [hit] = await conn.execute<{ rows: SpanEntry<Row> }[]>(
    `select rows from result_days where site_id = ?::uuid and kind = ? and spec = ? and day = ?::date`,
    [ctx.siteId, spanKind, spec, last],
    'all',
  );
  if (hit && hit.rows.versions === versions) return hit.rows.rows;
  const rows = sum(await gather({ liveDayRows: Number.POSITIVE_INFINITY }));
  const entry: SpanEntry<Row> = { versions, rows };
  await conn.execute(
    `with old as (delete from result_days where site_id = ?::uuid and kind = ? and day < ?::date)
     insert into result_days (site_id, kind, spec, day, rows, seen) values (?::uuid, ?, ?, ?::date, ?::jsonb, 0)
     on conflict (site_id, kind, spec, day) do update set rows = excluded.rows, computed_at = now()`,
    [ctx.siteId, spanKind, last, ctx.siteId, spanKind, spec, last, JSON.stringify(entry)],
    'run',
  );
  return rows;
}
