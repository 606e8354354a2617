// The stored-days half of an answer: for each part (one goal, one experiment, one journeys zoom…) and
// each UTC day, the stored rows, computing and storing the missing or outdated days first, one day at a
// time within a time budget. When the budget runs out before every day is stored, the answer is refused
// with 503 and the days done so far stay stored, so every new ask gets further (never a partial total).
// A stored day is current while no row arrived for it since (its arrivals version, store.ts). A live day
// of a large site is used as stored however many rows arrived: for a minute after it was computed
// (LIVE_LAG_SECONDS), then while it is counted again in the background, since counting it takes longer
// than an answer may.
import { AppError } from '../../core/errors.ts';
import type { DayRange } from '../range.ts';
import type { SiteCtx } from '../site-ctx.ts';
import { localRangeOf } from './days.ts';
import { specOf } from './spec.ts';
import { arrivalsOf, readHeaders, readRows, type StoreKind, writeStored } from './store.ts';

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
 * From how many rows (pageviews and events) a day counts as large: its stored figures are used even when rows
 * arrived since, and counted again in the background once they are LIVE_LAG_SECONDS old (a day this size is
 * too slow to compute on every ask: docs/performance/history.md, "Figures once kept in code comments"; a
 * smaller one is computed again on every ask that follows new rows).
 */
export const LIVE_DAY_ROWS = 50_000;
export const LIVE_LAG_SECONDS = 60;

export interface GatherOptions {
  /** Default FILL_BUDGET_MS; Infinity for the background job (never refuses). */
  budgetMs?: number;
  /** Default LIVE_DAY_ROWS (tests make every day large). */
  liveDayRows?: number;
  /** Default READ_BATCH_BYTES (tests read one entry at a time). */
  readBatchBytes?: number;
}

/** Stored rows are read in batches of about this many stored (compressed) bytes: a month of a large site's journeys is never held at once. */
export const READ_BATCH_BYTES = 4 << 20;

/** Takes the rows of one part and day, as they are read or computed. */
export type UseRows<Row> = (part: number, rows: readonly Row[]) => void;

/** Per part, the rows of every day (stored or just computed). */
export async function gatherDays<Row>(
  ctx: SiteCtx,
  parts: readonly Part[],
  days: readonly string[],
  compute: ComputeDay<Row>,
  opts: GatherOptions = {},
): Promise<Row[][]> {
  const out: Row[][] = parts.map(() => []);
  await eachDay(
    ctx,
    parts,
    days,
    compute,
    (i, rows) => {
      const list = out[i] as Row[];
      for (const r of rows) list.push(r);
    },
    opts,
  );
  return out;
}

/**
 * The rows of every part and day, handed to `use` a batch at a time, computing and storing missing or
 * outdated days first. With `use` null, days are only kept stored: those stored and current are not read.
 */
export async function eachDay<Row>(
  ctx: SiteCtx,
  parts: readonly Part[],
  days: readonly string[],
  compute: ComputeDay<Row>,
  use: UseRows<Row> | null,
  opts: GatherOptions = {},
): Promise<void> {
  const started = Date.now();
  const missing = new Map<string, number[]>();
  const addMissing = (day: string, i: number) => missing.set(day, [...(missing.get(day) ?? []), i]);
  const byKind = new Map<StoreKind, Wanted[]>();
  for (const [i, part] of parts.entries()) {
    for (const day of days) {
      const list = byKind.get(part.kind) ?? [];
      list.push({ i, spec: specOf([part.kind, part.definition], ctx.windows, day), day, bytes: 0 });
      byKind.set(part.kind, list);
    }
  }
  const arrivals = await arrivalsOf(ctx.em, ctx.siteId, days);
  const liveDayRows = opts.liveDayRows ?? LIVE_DAY_ROWS;
  /** Large live days served as stored while they are counted again in the background. */
  const recount = new Map<string, number[]>();
  for (const [kind, wanted] of byKind) {
    const headers = await readHeaders(ctx.em, ctx.siteId, kind, wanted);
    const found = new Map(headers.map((h) => [`${h.spec} ${h.day}`, h]));
    const usable: Wanted[] = [];
    for (const w of wanted) {
      const h = found.get(`${w.spec} ${w.day}`);
      const now = arrivals.get(w.day) ?? 0;
      if (h && h.seen !== now && now >= liveDayRows && h.age > LIVE_LAG_SECONDS) {
        recount.set(w.day, [...(recount.get(w.day) ?? []), w.i]);
      }
      if (h && (h.seen === now || now >= liveDayRows)) usable.push({ ...w, bytes: h.bytes });
      else addMissing(w.day, w.i);
    }
    if (!use) continue;
    for (const batch of batchesOf(usable, opts.readBatchBytes ?? READ_BATCH_BYTES)) {
      const stored = await readRows<Row>(ctx.em, ctx.siteId, kind, batch);
      const got = new Map(stored.map((s) => [`${s.spec} ${s.day}`, s.rows]));
      for (const w of batch) {
        const rows = got.get(`${w.spec} ${w.day}`);
        // Deleted since its header was read (rows arrived for the day): computed below.
        if (rows) use(w.i, rows);
        else addMissing(w.day, w.i);
      }
    }
  }
  for (const [day, idx] of recount) recountLater({ ctx, parts, day, idx, seen: arrivals.get(day) ?? 0, compute });
  const todo = [...missing.keys()].sort();
  let done = 0;
  for (const day of todo) {
    if (done > 0 && Date.now() - started > (opts.budgetMs ?? FILL_BUDGET_MS)) {
      throw preparing(days.length - todo.length + done, days.length);
    }
    const idx = missing.get(day) ?? [];
    const rows = await computeDay({ ctx, parts, day, idx, seen: arrivals.get(day) ?? 0, compute });
    if (use) for (const [k, i] of idx.entries()) use(i, rows[k] ?? []);
    done++;
  }
}

/** A part's day as asked: its index among the parts, its spec, and (once its header is read) its stored size. */
interface Wanted {
  i: number;
  spec: string;
  day: string;
  bytes: number;
}

/** Consecutive runs of entries of at most `most` stored bytes (at least one entry each). */
function* batchesOf(entries: readonly Wanted[], most: number): Generator<Wanted[]> {
  let batch: Wanted[] = [];
  let bytes = 0;
  for (const e of entries) {
    if (batch.length && bytes + e.bytes > most) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(e);
    bytes += e.bytes;
  }
  if (batch.length) yield batch;
}

/** One UTC day of the parts `idx`, to be stored as of version `seen`. */
interface DayWork<Row> {
  ctx: SiteCtx;
  parts: readonly Part[];
  day: string;
  idx: readonly number[];
  /** Read before computing: rows arriving meanwhile make the stored day outdated, never wrongly current. */
  seen: number;
  compute: ComputeDay<Row>;
}

async function computeDay<Row>({ ctx, parts, day, idx, seen, compute }: DayWork<Row>): Promise<Row[][]> {
  const rows = await compute(
    { ...ctx, utcDays: [day] },
    localRangeOf(day, ctx.timezone),
    idx.map((i) => parts[i] as Part),
  );
  const perKind = new Map<StoreKind, { spec: string; day: string; rows: unknown[] }[]>();
  idx.forEach((i, k) => {
    const part = parts[i] as Part;
    const list = perKind.get(part.kind) ?? [];
    list.push({ spec: specOf([part.kind, part.definition], ctx.windows, day), day, rows: rows[k] ?? [] });
    perKind.set(part.kind, list);
  });
  for (const [kind, entries] of perKind) await writeStored(ctx.em, ctx.siteId, kind, entries, seen);
  return rows;
}

/** Recounts of large live days under way in this process, by site: one at a time per site. */
const recounts = new Map<string, Promise<unknown>>();
/**
 * Recounts at once in this process. Each holds a stats connection for up to a statement's time after its answer
 * left the workspace's slot: one ask per filter value tried (each part its own stored spec) once started as many,
 * and filled the pool for every tenant.
 */
const RECOUNTS_AT_ONCE = 2;

/**
 * Counts a large live day again after the answer, so no ask waits for it (a busy site's today takes
 * about a second). A site with a recount under way, or a process with RECOUNTS_AT_ONCE, starts none: the stored
 * figures are answered, and a later ask starts it. A failed recount is left the same way.
 */
function recountLater<Row>(work: DayWork<Row>): void {
  const key = work.ctx.siteId;
  if (recounts.has(key) || recounts.size >= RECOUNTS_AT_ONCE) return;
  recountsStarted++;
  const job = computeDay(work)
    .catch(() => undefined)
    .finally(() => recounts.delete(key));
  recounts.set(key, job);
}

let recountsStarted = 0;
/** Recounts started in this process so far (tests). */
export const recountsStartedSoFar = () => recountsStarted;

/** Resolves once the recounts under way have ended (tests; an orderly stop). */
export async function recountsSettled(): Promise<void> {
  while (recounts.size) await Promise.all([...recounts.values()]);
}

function preparing(ready: number, total: number): AppError {
  return new AppError(
    503,
    `These results are being prepared: ${ready} of ${total} days are computed. Ask again in a few seconds; each ask computes more days.`,
    { retryAfter: 5 },
  );
}
