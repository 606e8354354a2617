// The stored-days half of an answer: for each part (one goal, one experiment, one journeys zoom…) and
// each settled UTC day, the stored rows, computing and storing the missing days first, one day at a time
// within a time budget. When the budget runs out before every day is stored, the answer is refused with
// 503 and the days done so far stay stored, so every new ask gets further (never a partial total).
import { AppError } from '../../errors.ts';
import type { DayRange } from '../stats/range.ts';
import type { SiteCtx } from '../stats/site-ctx.ts';
import { localRangeOf } from './days.ts';
import { specOf } from './spec.ts';
import { readStored, type StoreKind, seenOf, writeStored } from './store.ts';

/** How long one answer may spend computing missing days (the stats statement timeout is 15 s). */
export const FILL_BUDGET_MS = 8000;

export interface Part {
  kind: StoreKind;
  /** Everything that determines the figures besides bot windows (those are added per day). */
  definition: unknown;
}

/** Computes one UTC day of some parts: per part the rows of that day. */
export type ComputeDay<Row> = (dayCtx: SiteCtx, range: DayRange, parts: readonly Part[]) => Promise<Row[][]>;

export interface GatherOptions {
  /** Default FILL_BUDGET_MS; Infinity for the background job (never refuses). */
  budgetMs?: number;
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
  for (const [kind, wanted] of byKind) {
    const stored = await readStored<Row>(ctx.em, ctx.siteId, kind, wanted);
    const found = new Map(stored.map((s) => [`${s.spec} ${s.day}`, s.rows]));
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
    const seen = await seenOf(ctx.em, ctx.siteId, day);
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
