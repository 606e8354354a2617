import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { AnalyticsRows, AnalyticsTable, LocalRows } from './buffer.ts';
import { INGEST_TABLES } from './buffer.ts';

/**
 * Rows the in-process buffer still held when the process stopped (PostgreSQL unreachable, or the last
 * flush past its deadline) are written to `<dir>/spill-<time>-<pid>.ndjson`, one `{table, row}` per line,
 * and queued again at the next start. A file is removed only once its rows are stored.
 */
export function spillRows(dir: string, held: LocalRows[]): string | null {
  if (!held.some(({ rows }) => rows.length)) return null;
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `spill-${Date.now()}-${process.pid}.ndjson`);
  // Written under a temporary name first, so a crash mid-write never leaves half a file to read back; each step on
  // disk before the next (a host lost just after the rename could otherwise keep the name and not the rows).
  const fd = openSync(`${file}.tmp`, 'w');
  try {
    // A piece at a time: the rows joined into one text could pass the longest string V8 makes.
    let piece: string[] = [];
    let chars = 0;
    for (const { table, rows } of held) {
      for (const row of rows) {
        const line = JSON.stringify({ table, row });
        piece.push(line);
        chars += line.length + 1;
        if (chars >= SPILL_PIECE_CHARS) {
          writeSync(fd, `${piece.join('\n')}\n`);
          piece = [];
          chars = 0;
        }
      }
    }
    if (piece.length) writeSync(fd, `${piece.join('\n')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(`${file}.tmp`, file);
  syncFolder(dir);
  return file;
}

const SPILL_PIECE_CHARS = 1 << 20;

/** Makes a rename in `dir` durable (where the platform allows a folder to be synced). */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms refuse to sync a folder: the file itself is on disk.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export interface Spilled {
  files: string[];
  rows: LocalRows[];
  /** Lines that could not be read (kept for the dead letters). */
  unreadable: string[];
}

/** Reads every spill file of `dir` (none when the folder does not exist). */
export function readSpills(dir: string): Spilled {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => /^spill-.*\.ndjson$/.test(n))
      .sort();
  } catch {
    return { files: [], rows: [], unreadable: [] };
  }
  const byTable = new Map<AnalyticsTable, AnalyticsRows[AnalyticsTable][]>();
  const unreadable: string[] = [];
  const files = names.map((n) => path.join(dir, n));
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const { table, row } = JSON.parse(line) as { table: AnalyticsTable; row: { at: string | Date } };
        if (!INGEST_TABLES.includes(table) || !row || typeof row !== 'object') throw new Error('not a row');
        row.at = new Date(row.at);
        // Pushed, not copied: a copy of the table's rows per line made reading 200k spilled rows quadratic (minutes,
        // before the server listened, every start again).
        const rows = byTable.get(table);
        if (rows) rows.push(row as AnalyticsRows[AnalyticsTable]);
        else byTable.set(table, [row as AnalyticsRows[AnalyticsTable]]);
      } catch {
        unreadable.push(line);
      }
    }
  }
  return { files, rows: [...byTable].map(([table, rows]) => ({ table, rows })), unreadable };
}

export function removeSpills(files: string[]): void {
  for (const f of files) rmSync(f, { force: true });
}
