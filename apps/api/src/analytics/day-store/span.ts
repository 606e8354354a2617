// The sum of a run of stored days as one entry (`result_days` with kind `<kind>-span`, keyed by the
// days' own specs, filed under the run's last day). For journeys, whose days hold ~10^4 groups each:
// an ask then reads one packed entry for the older days instead of a month of days as JSON.
// The entry carries the arrivals version of each of its days and is used only while all of them still
// match; it is built from exact days only (never from a large live day's minute-old figures), so a
// matching version always means matching figures. Building a span deletes the site's older spans of the
// kind, so one run of days is kept per definition, not one per day asked.
import { createHash } from 'node:crypto';
import type { SiteCtx } from '../site-ctx.ts';
import type { GatherOptions } from './gather.ts';
import { specOf } from './spec.ts';
import { arrivalsOf, type StoreKind } from './store.ts';

/** How a span's value is stored: a JSON header (in `rows`) and binary figures (in `packed`). */
export interface SpanCodec<T, Header> {
  pack(value: T): { header: Header; bytes: Buffer };
  unpack(header: Header, bytes: Uint8Array): T;
}

interface SpanEntry<Header> {
  /** `day:version` of every day of the span, in order. */
  versions: string;
  header: Header;
}

/**
 * The value of `days` (sorted, at least one), from the span entry when it is current; else `build`
 * (called with options that read exact days only), stored as the span.
 */
export async function spanOf<T, Header>(
  ctx: SiteCtx,
  kind: StoreKind,
  definition: unknown,
  days: readonly string[],
  build: (opts: GatherOptions) => Promise<T>,
  codec: SpanCodec<T, Header>,
): Promise<T> {
  const last = days.at(-1);
  if (last === undefined) throw new Error('a span needs at least one day');
  const spanKind = `${kind}-span`;
  const spec = createHash('sha256')
    .update(JSON.stringify(days.map((d) => specOf([kind, definition], ctx.windows, d))))
    .digest('base64url')
    .slice(0, 32);
  // Versions before the figures: rows arriving meanwhile make the span outdated, never wrongly current.
  const arrivals = await arrivalsOf(ctx.em, ctx.siteId, days);
  const versions = days.map((d) => `${d}:${arrivals.get(d) ?? 0}`).join(',');
  const conn = ctx.em.getConnection();
  const [hit] = await conn.execute<{ rows: SpanEntry<Header>; packed: Buffer | null }[]>(
    `select rows, packed from result_days where site_id = ?::uuid and kind = ? and spec = ? and day = ?::date`,
    [ctx.siteId, spanKind, spec, last],
    'all',
  );
  if (hit?.packed && hit.rows.versions === versions) return codec.unpack(hit.rows.header, hit.packed);
  const value = await build({ liveDayRows: Number.POSITIVE_INFINITY });
  const { header, bytes } = codec.pack(value);
  const entry: SpanEntry<Header> = { versions, header };
  await conn.execute(
    `with old as (delete from result_days where site_id = ?::uuid and kind = ? and day < ?::date)
     insert into result_days (site_id, kind, spec, day, rows, packed, seen, computed_at)
     values (?::uuid, ?, ?, ?::date, ?::jsonb, ?, 0, now())
     on conflict (site_id, kind, spec, day) do update
       set rows = excluded.rows, packed = excluded.packed, computed_at = excluded.computed_at`,
    [ctx.siteId, spanKind, last, ctx.siteId, spanKind, spec, last, JSON.stringify(entry), bytes],
    'run',
  );
  return value;
}
