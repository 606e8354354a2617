// The stored-days half of an answer: for each part (one goal, one experiment, one journeys zoom…) and
// each UTC day, the stored rows, computing and storing the missing or outdated days first, one day at a
// time within a time budget. When the budget runs out before every day is stored, the answer is refused
// with 503 and the days done so far stay stored, so every new ask gets further (never a partial total).
// A stored day is current while no row arrived for it since (its arrivals version, store.ts); a live day
// of a large site is also used for a minute after it was computed (LIVE_LAG_SECONDS), since computing it
// again takes longer than an answer may.
import { AppError } from '../../errors.ts';
import type { DayRange } from '../stats/range.ts';
import type { SiteCtx } from '../stats/site-ctx.ts';
import { localRangeOf } from './days.ts';
import { specOf } from './spec.ts';
import { arrivalsOf, readStored, type StoreKind, writeStored } from './store.ts';

/** How long one answer may spend computing missing days (the stats statement timeout is 15 s). */
export const FILL_BUDGET_MS = 8000;

export interface Part {
  kind: StoreKind;
  /** Everything that determines the figures besides bot windows (those are added per day). */
  definition: unknown;
}

/** Computes one UTC day of some parts: per part the rows of that day. */
export type ComputeDay<Row> = (dayCtx: SiteCtx, range: DayRange, parts: readonly Part[]) => Promise<Row[][]>;

/**
 * From how many rows (pageviews and events) a day counts as large: its stored figures are used for up to
 * LIVE_LAG_SECONDS after they were computed even when rows arrived since (a day this size takes a few
 * hundred milliseconds to compute; a smaller one is computed again on every ask that follows new rows).
 */
export const LIVE_DAY_ROWS = 50_000;
export const LIVE_LAG_SECONDS = 60;

export interface GatherOptions {
  /** Default FILL_BUDGET_MS; Infinity for the background job (never refuses). */
  budgetMs?: number;
  /** Default LIVE_DAY_ROWS (tests make every day large). */
  liveDayRows?: number;
}

/** Per part, the rows of every day (stored or just computed). */
export async function gatherDays<Row>(
  ctx: SiteCtx,
  parts: readonly Part[],
  days: readonly string[],
  compute: ComputeDay<Row>,
  opts: GatherOptions = {},
): Promise<Row[][]> {
  const started = Date.now();
  const out: Row[][] = parts.map(() => []);
  const missing = new Map<string, number[]>();
  const byKind = new Map<StoreKind, { i: number; spec: string; day: string }[]>();
  for (const [i, part] of parts.entries()) {
    for (const day of days) {
      const list = byKind.get(part.kind) ?? [];
      list.push({ i, spec: specOf([part.kind, part.definition], ctx.windows, day), day });
      byKind.set(part.kind, list);
    }
  }
  const arrivals = await arrivalsOf(ctx.em, ctx.siteId, days);
  const liveDayRows = opts.liveDayRows ?? LIVE_DAY_ROWS;
  for (const [kind, wanted] of byKind) {
    const stored = await readStored<Row>(ctx.em, ctx.siteId, kind, wanted);
    const current = stored.filter((s) => {
      const now = arrivals.get(s.day) ?? 0;
      return s.seen === now || (now >= liveDayRows && s.age <= LIVE_LAG_SECONDS);
    });
    const found = new Map(current.map((s) => [`${s.spec} ${s.day}`, s.rows]));
    for (const w of wanted) {
      const rows = found.get(`${w.spec} ${w.day}`);
      if (rows) (out[w.i] as Row[]).push(...rows);
      else missing.set(w.day, [...(missing.get(w.day) ?? []), w.i]);
    }
  }
  const todo = [...missing.keys()].sort();
  let done = 0;
  for (const day of todo) {
    if (done > 0 && Date.now() - started > (opts.budgetMs ?? FILL_BUDGET_MS)) {
      throw preparing(days.length - todo.length + done, days.length);
    }
    const idx = missing.get(day) ?? [];
    // Read before computing: rows arriving meanwhile make the stored day outdated, never wrongly current.
    const seen = arrivals.get(day) ?? 0;
    const rows = await compute(
      { ...ctx, utcDays: [day] },
      localRangeOf(day, ctx.timezone),
      idx.map((i) => parts[i] as Part),
    );
    const perKind = new Map<StoreKind, { spec: string; day: string; rows: unknown[] }[]>();
    idx.forEach((i, k) => {
      const part = parts[i] as Part;
      const dayRows = rows[k] ?? [];
      (out[i] as Row[]).push(...dayRows);
      const list = perKind.get(part.kind) ?? [];
      list.push({ spec: specOf([part.kind, part.definition], ctx.windows, day), day, rows: dayRows });
      perKind.set(part.kind, list);
    });
    for (const [kind, entries] of perKind) await writeStored(ctx.em, ctx.siteId, kind, entries, seen);
    done++;
  }
  return out;
}

function preparing(ready: number, total: number): AppError {
  return new AppError(
    503,
    `These results are being prepared: ${ready} of ${total} days are computed. Ask again in a few seconds; each ask computes more days.`,
    { retryAfter: 5 },
  );
}
