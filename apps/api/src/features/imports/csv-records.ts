// A stored file read as CSV records, streaming: its header, then each record with its line. Records the
// parser cannot read (an unclosed quote, a record past the size bound) are reported and skipped; a
// record whose field count differs from the header's is reported too.
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { NumberedRecord } from './formats/format.ts';

/** One record may not be longer than this (a file of one endless line is refused, not buffered). */
export const MAX_RECORD_BYTES = 64 * 1024;

export interface CsvFile {
  /** The header's columns, or null for a file without one. */
  header: string[] | null;
  /** The records after the header, from line `afterLine` on (a resumed file). */
  records: AsyncGenerator<NumberedRecord>;
  /** Stops reading (a file read for its header only). */
  close(): void;
}

type Parsed = { record: string[]; info: { lines: number } };

export async function readCsv(
  chunks: AsyncIterable<Buffer>,
  opts: { commentPrefix?: string; afterLine: number; bad: (line: number, reason: string) => void },
): Promise<CsvFile> {
  const pending: { line: number; reason: string }[] = [];
  /** Reports the parser's skipped records up to `line`, those after `afterLine` (a resumed file has reported the others). */
  const reportUpTo = (line: number) => {
    while (pending.length && (pending[0] as { line: number }).line <= line) {
      const b = pending.shift() as { line: number; reason: string };
      if (b.line > opts.afterLine) opts.bad(b.line, b.reason);
    }
  };
  const parser = Readable.from(chunks).pipe(
    parse({
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      max_record_size: MAX_RECORD_BYTES,
      ...(opts.commentPrefix ? { comment: opts.commentPrefix, comment_no_infix: true } : {}),
      // Called as the parser reads ahead (a whole chunk at once): reported in line order between the records.
      on_skip: (err) => {
        pending.push({ line: parser.info.lines, reason: `unreadable CSV: ${err?.message ?? 'bad quoting'}` });
        return undefined;
      },
    }),
  );
  const it = parser[Symbol.asyncIterator]() as AsyncIterator<Parsed>;
  const first = await it.next();
  const close = () => parser.destroy();
  if (first.done) return { header: null, records: (async function* () {})(), close };
  const header = first.value.record.map((c) => c.trim());
  async function* records(): AsyncGenerator<NumberedRecord> {
    try {
      for (let next = await it.next(); !next.done; next = await it.next()) {
        const { record, info } = next.value;
        reportUpTo(info.lines);
        if (info.lines <= opts.afterLine) continue;
        if (record.length !== header.length) {
          opts.bad(info.lines, `${record.length} fields where the header has ${header.length}`);
          continue;
        }
        yield { line: info.lines, record: Object.fromEntries(header.map((h, i) => [h, record[i] as string])) };
      }
      reportUpTo(Number.MAX_SAFE_INTEGER);
    } finally {
      parser.destroy();
    }
  }
  return { header, records: records(), close };
}
