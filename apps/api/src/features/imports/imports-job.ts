// The import job: reads a started import's files, streaming, into imported daily figures, in batches each
// stored with its checkpoint, so a run stopped anywhere (a restart, a node gone) resumes after the last
// stored line and ends with the figures of one uninterrupted run. Runs every few seconds, a site's imports
// one at a time across nodes, and imports due in turns a file at a time, workspace by workspace (the claims:
// import-claims.ts); see docs/product/imports.md.
import type { Orm, PgPool } from '@us/db';
import { dbFault, pgPoolOf } from '@us/db';
import { cleanText, IMPORT_LIMITS } from '@us/shared';
import { localToday } from '../../analytics/range.ts';
import type { Logger } from '../../core/logger.ts';
import { readCsv } from './csv-records.ts';
import type { ImportFormat, ImportSink, ImportSource } from './formats/format.ts';
import { formatOf } from './formats/index.ts';
import {
  Batch,
  type Checkpoint,
  earlierDays,
  nativeDays,
  recordProgress,
  replaceEarlier,
  stageRecords,
  storeRows,
} from './import-batch.ts';
import { claimNext, endTurn, othersDue } from './import-claims.ts';
import { type Db, fileChunks, inTransaction, withClient } from './import-files.ts';

/** Records per batch (each batch one transaction with its checkpoint). */
export const BATCH_RECORDS = 2000;
/** A checkpoint's line once its file is read to its end. */
const FILE_END = Number.MAX_SAFE_INTEGER;

/** The longest reason a bad row keeps: reasons quote cells, and a cell may be 64 KB. */
const REASON_CHARS = 200;

/**
 * A bad row's reason as it is stored (jsonb) and shown: without control characters or lone surrogates (jsonb refuses
 * NUL: one such cell failed the whole import), at most REASON_CHARS.
 */
export function shownReason(reason: string): string {
  const clean = cleanText(reason, REASON_CHARS + 1);
  return clean.length > REASON_CHARS ? `${cleanText(clean, REASON_CHARS - 1)}…` : clean;
}

export interface ImportRunOptions {
  logger?: Logger;
  /** Stops after this many batches, leaving the import running (tests: a run cut short). */
  stopAfterBatches?: number;
  /** The format by source (tests: a format of their own). */
  formatOf?: (source: ImportSource) => ImportFormat | null;
  batchRecords?: number;
  /** Records an import may hold (tests: a small bound); default IMPORT_LIMITS.rowsPerImport. */
  maxRows?: number;
}

class Stopped extends Error {}
class Refused extends Error {}
/** A run that ended a file while other imports were due: it goes back to the queue, resuming with its next file. */
class Yielded extends Error {}

interface Claimed {
  id: string;
  /** This run's hold on the import (`holdImport`). */
  claim: string;
  site_id: string;
  source: ImportSource;
  timezone: string;
  checkpoint: Checkpoint | null;
  rows_read: string;
}

/**
 * Imports due: queued ones, and running ones whose node stopped writing. Each run takes one at a time, and a
 * site's imports run one at a time in every node's runs together: a later import replaces the earlier one's
 * days (`replaceEarlier`), so two read side by side would delete what the other stored, batch by batch.
 * Imports take turns a file at a time: one that ends a file while another is due goes back to the queue.
 * Returns the turns taken.
 */
export async function runDueImports(orm: Orm, opts: ImportRunOptions & { siteIds?: string[] } = {}): Promise<number> {
  const pool = await pgPoolOf(orm);
  let turns = 0;
  for (;;) {
    const id = await claimNext(pool, opts.siteIds);
    if (!id) return turns;
    await runTurn(orm, id, opts, { siteIds: opts.siteIds });
    turns++;
  }
}

/** Runs (or resumes) one import to its end; a run stopped by `stopAfterBatches` leaves it running. */
export async function runImport(orm: Orm, importId: string, opts: ImportRunOptions = {}): Promise<void> {
  await runTurn(orm, importId, opts, null);
}

/** Which imports a turn ends for (those of these sites when given); null: the run goes to the import's end. */
type Turns = { siteIds: string[] | undefined } | null;

async function runTurn(orm: Orm, importId: string, opts: ImportRunOptions, turns: Turns): Promise<void> {
  const pool = await pgPoolOf(orm);
  const claimed = await loadClaim(pool, importId);
  if (!claimed) return;
  const format = (opts.formatOf ?? formatOf)(claimed.source);
  try {
    if (!format) throw new Refused(`Imports from ${claimed.source} are not read by this version of the service yet`);
    await readFiles(pool, claimed, format, opts, turns);
    await finish(pool, claimed);
  } catch (e) {
    if (e instanceof Stopped) return;
    if (e instanceof Yielded) return endTurn(pool, importId, claimed.claim);
    // PostgreSQL restarting, a lost connection, a deadlock: not the files' fault. The import goes back to the queue at
    // its last checkpoint, its files kept, and this run ends (the job's next run resumes it). It failed for good
    // before, and its files were deleted.
    const fault = dbFault(e);
    if (fault === 'unavailable' || fault === 'busy') {
      await endTurn(pool, importId, claimed.claim).catch(() => {});
      throw e;
    }
    const known = e instanceof Refused;
    if (!known) opts.logger?.error(`imports: import ${importId} failed`, e);
    await fail(pool, claimed, known ? e.message : 'The import failed on our side: delete it and start a new one');
  }
}

async function loadClaim(pool: PgPool, importId: string): Promise<Claimed | null> {
  const { rows } = await withClient(pool, (db) =>
    db.query<Claimed>(
      `update imports i set status = 'running', started_at = coalesce(i.started_at, now()), heartbeat_at = now(),
              claim = gen_random_uuid()
       from sites s where i.id = $1 and s.id = i.site_id and i.status in ('queued', 'running')
       returning i.id, i.claim::text as claim, i.site_id, i.source, s.timezone, i.checkpoint, i.rows_read`,
      [importId],
    ),
  );
  return rows[0] ?? null;
}

async function readFiles(pool: PgPool, claimed: Claimed, format: ImportFormat, opts: ImportRunOptions, turns: Turns) {
  const { rows: files } = await withClient(pool, (db) =>
    db.query<{ name: string }>(
      // In byte order, as the checkpoint's names are compared below (a database's own collation, en_US on the
      // compose file's PostgreSQL, put `overview.csv` before `Traffic.csv`, and a resume skipped or re-read a file).
      'select name from import_files where import_id = $1 and complete order by name collate "C"',
      [claimed.id],
    ),
  );
  const from = claimed.checkpoint;
  let rowsRead = Number(claimed.rows_read);
  let batches = 0;
  const perBatch = opts.batchRecords ?? BATCH_RECORDS;
  const maxRows = opts.maxRows ?? IMPORT_LIMITS.rowsPerImport;
  const native = new Map<string, boolean>();
  // A format holding records (format.ts) resumes only at a file's end: what it staged from a file begun
  // after that is dropped, and its batches inside a file keep the checkpoint where the file began.
  let fileStart = from;
  let filesRead = 0;
  if (format.holdsRecords) await dropStagedAfter(pool, claimed, from?.file ?? null);
  for (const { name } of files) {
    // Files before the checkpoint's, and its own when it was read to its end, are stored already.
    if (from && (name < from.file || (name === from.file && from.line === FILE_END))) continue;
    // A turn is a file at least: it ends after one when another import is due.
    if (turns && filesRead > 0 && (await othersDue(pool, claimed.id, turns.siteIds))) throw new Yielded();
    let batch = new Batch();
    let sinceFlush = 0;
    let lastLine = from && name === from.file ? from.line : 1;
    const flush = async (checkpoint: Checkpoint | null, fileEnd = false) => {
      // A holding format's file counts its records and bad rows once, at its end: a re-read must not count them twice.
      const carried =
        format.holdsRecords && !fileEnd ? { records: batch.records, bad: batch.bad, badCount: batch.badCount } : null;
      if (carried) Object.assign(batch, { records: 0, bad: [], badCount: 0 });
      await writeBatch(pool, claimed, name, batch, checkpoint, native);
      rowsRead += batch.records;
      batch = new Batch();
      if (carried) Object.assign(batch, carried);
      sinceFlush = 0;
      batches++;
      if (opts.stopAfterBatches !== undefined && batches >= opts.stopAfterBatches) throw new Stopped();
    };
    const bad = (line: number, reason: string) => {
      // Bad rows come in line order (csv-records.ts): a checkpoint after one does not read it again.
      lastLine = Math.max(lastLine, line);
      batch.badCount++;
      if (batch.bad.length < IMPORT_LIMITS.badSamples) batch.bad.push({ file: name, line, reason: shownReason(reason) });
    };
    const csv = await readCsv(fileChunks(pool, claimed.id, name), {
      commentPrefix: format.commentPrefix,
      afterLine: lastLine,
      bad,
    });
    const refusal = csv.header ? format.check(name, csv.header) : `${name} is empty: upload it again`;
    if (refusal) throw new Refused(refusal);
    // The format asks for a record once it has given the previous one's figures: a batch is cut there.
    async function* counted() {
      for await (const r of csv.records) {
        if (sinceFlush >= perBatch || batch.size >= perBatch * 4)
          await flush(format.holdsRecords ? fileStart : { file: name, line: lastLine });
        if (rowsRead + batch.records >= maxRows) {
          throw new Refused(`The files hold more than ${maxRows.toLocaleString('en')} rows: import a shorter period at a time`);
        }
        batch.records++;
        sinceFlush++;
        lastLine = r.line;
        yield r;
      }
    }
    const sink: ImportSink = {
      rows: async (rows) => batch.add(rows),
      staged: async (records) => {
        batch.staged.push(...records);
      },
      bad: (line, reason) => {
        bad(line, reason);
      },
    };
    await format.read(name, counted(), sink);
    // The file's end: its last batch, with the checkpoint at its last line.
    fileStart = { file: name, line: FILE_END };
    await flush(fileStart, true);
    filesRead++;
  }
}

/** Staged records of the files after `file` (every file when null): a holding format reads them again. */
async function dropStagedAfter(pool: PgPool, claimed: Claimed, file: string | null) {
  await withClient(pool, (db) =>
    db.query('delete from import_staged where site_id = $1 and import_id = $2 and ($3::text is null or file collate "C" > $3)', [
      claimed.site_id,
      claimed.id,
      file,
    ]),
  );
}

/** Stores one batch; stops the run when the import was deleted or cancelled meanwhile. */
async function writeBatch(
  pool: PgPool,
  claimed: Claimed,
  file: string,
  batch: Batch,
  checkpoint: Checkpoint | null,
  native: Map<string, boolean>,
) {
  await inTransaction(pool, async (db) => {
    await holdImport(db, claimed);
    // Days after the site's today are no history: neither stored nor listed (a file of every day to 9999 grew the
    // import's skipped days by millions, rewritten on each batch and sent on each look at the import).
    const today = localToday(claimed.timezone);
    const days = batch.days().filter((d) => d <= today);
    const unknown = days.filter((d) => !native.has(d));
    const found = await nativeDays(db, claimed.site_id, claimed.timezone, unknown);
    // The site's day in progress (and any later one) is its own: its rows are still arriving, and an imported figure
    // of it would be summed with them once it is rolled up (a UTC day of Umami's exported in the evening of New York).
    for (const d of unknown) native.set(d, found.has(d) || d >= today);
    const keep = days.filter((d) => !native.get(d));
    const skipped = days.filter((d) => native.get(d));
    const replaced = await earlierDays(db, claimed.site_id, claimed.id, keep);
    const kept = new Set(keep);
    const stored = await storeRows(
      db,
      claimed.site_id,
      claimed.id,
      [...batch.sums.values()].filter((r) => kept.has(r.day)),
    );
    await stageRecords(
      db,
      claimed.site_id,
      claimed.id,
      file,
      batch.staged.filter((r) => kept.has(r.day)),
    );
    await recordProgress(
      db,
      claimed.id,
      { records: batch.records, stored, bad: batch.bad, badCount: batch.badCount, days, skipped, replaced },
      checkpoint,
    );
  });
}

/** Locks the import's row for the batch; an import deleted or cancelled meanwhile stops the run. */
async function holdImport(db: Db, claimed: Pick<Claimed, 'id' | 'claim'>) {
  const { rows } = await db.query<{ status: string; claim: string | null }>(
    'select status, claim::text as claim from imports where id = $1 for update',
    [claimed.id],
  );
  // Deleted, done, or taken over by another run (this one wrote nothing for two minutes): that run goes on.
  if (rows[0]?.status !== 'running' || rows[0].claim !== claimed.claim) throw new Stopped();
}

/**
 * Every file read: the earlier imports' figures of its days replaced by its own, the staged records summed (visitors:
 * distinct visits), the files dropped, the import done.
 */
async function finish(pool: PgPool, claimed: Claimed) {
  await inTransaction(pool, async (db) => {
    await holdImport(db, claimed);
    await replaceEarlier(db, claimed.site_id, claimed.id);
    const { rows } = await db.query<{ added: string }>(
      `with up as (
         insert into imported_rollups (site_id, day, metric_set, dimension, value, lane, count, visitors, import_id)
         select site_id, day, metric_set, dimension, value, 'human', sum(count), count(distinct visit_key), import_id
         from import_staged where site_id = $1 and import_id = $2
         group by site_id, import_id, day, metric_set, dimension, value
         on conflict (site_id, day, metric_set, dimension, value, lane, import_id)
           do update set count = imported_rollups.count + excluded.count, visitors = imported_rollups.visitors + excluded.visitors
         returning (xmax = 0) as inserted)
       select count(*) filter (where inserted) as added from up`,
      [claimed.site_id, claimed.id],
    );
    await db.query('delete from import_staged where site_id = $1 and import_id = $2', [claimed.site_id, claimed.id]);
    await db.query('delete from import_files where import_id = $1', [claimed.id]);
    await db.query(
      `update imports set status = 'done', finished_at = now(), checkpoint = null, rows_stored = rows_stored + $2 where id = $1`,
      [claimed.id, Number(rows[0]?.added ?? 0)],
    );
  });
}

/** A refused or broken import keeps none of its figures (an import is whole or nothing, bad rows aside). */
async function fail(pool: PgPool, claimed: Claimed, error: string) {
  await inTransaction(pool, async (db) => {
    try {
      await holdImport(db, claimed);
    } catch (e) {
      if (e instanceof Stopped) return;
      throw e;
    }
    await db.query('delete from imported_rollups where site_id = $1 and import_id = $2', [claimed.site_id, claimed.id]);
    await db.query('delete from import_staged where site_id = $1 and import_id = $2', [claimed.site_id, claimed.id]);
    await db.query('delete from import_files where import_id = $1', [claimed.id]);
    await db.query(
      `update imports set status = 'failed', finished_at = now(), checkpoint = null, rows_stored = 0, error = $2 where id = $1`,
      [claimed.id, error],
    );
  });
}
