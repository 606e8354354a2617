// A stored file read as CSV records, streaming: its header, then each record with its line. A record ends at a
// line break outside quotes (a quoted field may hold line breaks). A record the reader cannot split into fields (an
// unclosed quote, text after a closing quote) or longer than MAX_RECORD_BYTES is reported and skipped, and reading
// goes on at the next line: one bad record costs only itself. (The CSV library this replaced did not recover after
// some of these errors: the rest of the file was dropped silently, and a file of only unreadable lines was
// buffered error by error while its header was looked for, until the process ran out of memory.)
import type { NumberedRecord } from './formats/format.ts';

/** One record may not be longer than this (a file of one endless line is refused, not buffered). */
export const MAX_RECORD_BYTES = 64 * 1024;
/**
 * Nor span more than this many lines. A quote never closed makes its first line the bad record and the lines after
 * it are read again: bounded only by bytes, a file of lines each opening a quote (`a"b,"`) read 64 KB again for
 * every line, minutes of one core per megabyte, in the API's process.
 */
export const MAX_RECORD_LINES = 100;
/** The header is the first readable record among this many (comments and empty lines aside); none: no header. */
const HEADER_WITHIN_RECORDS = 100;

export interface CsvFile {
  /** The header's columns, or null for a file without one. */
  header: string[] | null;
  /** The records after the header, from line `afterLine` on (a resumed file). */
  records: AsyncGenerator<NumberedRecord>;
  /** Stops reading (a file read for its header only). */
  close(): void;
}

/** A record as its lines held it: its text (without the line break), or too long to keep; `line` is its last line. */
type RawRecord = { line: number; text: string } | { line: number; tooLong: true };

const QUOTE = 34;
const COMMA = 44;

/**
 * The records of a stream of UTF-8 bytes (a byte order mark dropped), split at line breaks outside quoted fields
 * (a quote opens one only at a field's start; `""` inside is a quote); a comment line (starting with
 * `commentPrefix`) and an empty line are no record. A record that grows past MAX_RECORD_BYTES over several lines
 * (a quote never closed) gives its first line alone, as it is, and the lines after it are read again as records of
 * their own; one that is a single line that long is given as too long, and reading goes on at the next line.
 */
export async function* rawRecords(chunks: AsyncIterable<Buffer>, commentPrefix?: string): AsyncGenerator<RawRecord> {
  const decoder = new TextDecoder('utf-8');
  let line = 1;
  let startLine = 1;
  let parts: string[] = [];
  let length = 0;
  let inQuotes = false;
  /** A quote inside a quoted field, not yet known to close it or to be the first of `""`. */
  let quotePending = false;
  let fieldStart = true;
  let skipping: 'comment' | 'tooLong' | null = null;
  let atStart = true;
  let breaks = 0;
  /** The next quote at or after the last place looked from in the piece being read (-1: none left in it); null: not looked yet. */
  let quoteAt: number | null = null;

  const reset = () => {
    parts = [];
    length = 0;
    inQuotes = false;
    quotePending = false;
    fieldStart = true;
    skipping = null;
    atStart = true;
    breaks = 0;
  };

  function* end(): Generator<RawRecord> {
    if (skipping === 'tooLong') yield { line, tooLong: true };
    else if (skipping === null) {
      let text = parts.join('');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text !== '') yield { line, text };
    }
    reset();
  }

  /** Follows the quotes of `piece[from, to)`, a stretch without line breaks, from the state so far. */
  function follow(piece: string, from: number, to: number) {
    // The next quote is looked for once per stretch of the piece it skips: a search from every line to the piece's
    // end made a chunk of short lines without quotes cost seconds.
    if (quoteAt === null || (quoteAt >= 0 && quoteAt < from)) quoteAt = piece.indexOf('"', from);
    if (!inQuotes && !quotePending && (quoteAt < 0 || quoteAt >= to)) {
      if (to > from) fieldStart = piece.charCodeAt(to - 1) === COMMA;
      return;
    }
    for (let i = from; i < to; i++) {
      const c = piece.charCodeAt(i);
      if (quotePending) {
        quotePending = false;
        if (c === QUOTE) continue;
        inQuotes = false;
      }
      if (inQuotes) {
        if (c === QUOTE) quotePending = true;
      } else if (c === QUOTE && fieldStart) {
        inQuotes = true;
        fieldStart = false;
      } else fieldStart = c === COMMA;
    }
  }

  /**
   * A record held over several lines by a quote never closed: its first line alone is the bad record (given as it
   * is); answers the lines after it, to be read again as records of their own.
   */
  function* firstLineAlone(): Generator<RawRecord, string> {
    const text = parts.join('');
    const firstBreak = text.indexOf('\n');
    const first = startLine;
    reset();
    line = first;
    yield { line: first, text: text.slice(0, firstBreak) };
    line = first + 1;
    return text.slice(firstBreak + 1);
  }

  /** Reads `input`; text a bad record gives back to be read again is read before the rest of it (no recursion). */
  function* take(input: string): Generator<RawRecord> {
    const queue = [input];
    while (queue.length > 0) {
      const piece = queue.shift() as string;
      quoteAt = null;
      let at = 0;
      while (at < piece.length) {
        if (atStart) {
          startLine = line;
          if (commentPrefix && piece.startsWith(commentPrefix, at)) skipping = 'comment';
        }
        atStart = false;
        const newline = piece.indexOf('\n', at);
        const stop = newline < 0 ? piece.length : newline;
        if (skipping === null) {
          follow(piece, at, stop);
          if (quotePending && newline >= 0) {
            // The quote before the line break closed its field.
            quotePending = false;
            inQuotes = false;
          }
          length += stop - at;
          parts.push(piece.slice(at, stop));
          if (length > MAX_RECORD_BYTES || breaks >= MAX_RECORD_LINES) {
            if (parts.includes('\n')) {
              // Read again before what follows it.
              queue.unshift(yield* firstLineAlone(), piece.slice(stop));
              break;
            }
            parts = [];
            skipping = 'tooLong';
          }
        }
        if (newline < 0) break;
        // A line break inside a quoted field is the field's, except in a record being skipped.
        if (inQuotes && skipping === null) {
          parts.push('\n');
          length += 1;
          breaks += 1;
        } else yield* end();
        line += 1;
        at = newline + 1;
      }
    }
  }

  for await (const chunk of chunks) yield* take(decoder.decode(chunk, { stream: true }));
  yield* take(decoder.decode());
  // The file ends inside a quoted field: the quote was never closed, so its first line alone is the bad record
  // and the lines after it are read again (as when it grows past the bound), until none is left open.
  while (inQuotes && skipping === null && parts.includes('\n')) yield* take(yield* firstLineAlone());
  if (length > 0 || skipping === 'tooLong') yield* end();
}

/**
 * The fields of one record, or null when they cannot be read: a quoted field not closed, or text after its closing
 * quote. A quote inside an unquoted field is kept as text; `""` inside a quoted field is one quote.
 */
export function fieldsOf(text: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) return null;
        value += text.slice(from, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          value += '"';
          from = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      out.push(value);
      if (i === text.length) return out;
      if (text.charCodeAt(i) !== COMMA) return null;
      i += 1;
    } else {
      const comma = text.indexOf(',', i);
      if (comma < 0) {
        out.push(text.slice(i));
        return out;
      }
      out.push(text.slice(i, comma));
      i = comma + 1;
    }
    if (i === text.length) {
      out.push('');
      return out;
    }
  }
}

/** Why a raw record is not a record, or its fields. */
function read(raw: RawRecord): string[] | string {
  if ('tooLong' in raw) return `unreadable CSV: a record longer than ${MAX_RECORD_BYTES / 1024} KB`;
  return fieldsOf(raw.text) ?? 'unreadable CSV: a quote not closed, or text after a closing quote';
}

export async function readCsv(
  chunks: AsyncIterable<Buffer>,
  opts: { commentPrefix?: string; afterLine: number; bad: (line: number, reason: string) => void },
): Promise<CsvFile> {
  const it = rawRecords(chunks, opts.commentPrefix);
  const close = () => void it.return(undefined);
  let header: string[] | null = null;
  for (let seen = 0; seen < HEADER_WITHIN_RECORDS && header === null; seen++) {
    const next = await it.next();
    if (next.done) break;
    const fields = read(next.value);
    if (typeof fields !== 'string') header = fields.map((c) => c.trim());
    else if (next.value.line > opts.afterLine) opts.bad(next.value.line, fields);
  }
  if (header === null) {
    close();
    return { header: null, records: (async function* () {})(), close };
  }
  const columns = header;
  async function* records(): AsyncGenerator<NumberedRecord> {
    try {
      for await (const raw of it) {
        if (raw.line <= opts.afterLine) continue;
        const fields = read(raw);
        if (typeof fields === 'string') {
          opts.bad(raw.line, fields);
          continue;
        }
        if (fields.length !== columns.length) {
          opts.bad(raw.line, `${fields.length} fields where the header has ${columns.length}`);
          continue;
        }
        yield { line: raw.line, record: Object.fromEntries(columns.map((h, i) => [h, fields[i] as string])) };
      }
    } finally {
      close();
    }
  }
  return { header, records: records(), close };
}
