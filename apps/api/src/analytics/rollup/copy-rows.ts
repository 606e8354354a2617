// Rows of a `COPY (select …) TO STDOUT` in PostgreSQL's text format, read straight from the stream's
// bytes: each chunk is decoded once up to its last newline (a newline byte never falls inside a UTF-8
// character, and the text format escapes newlines inside values), then cut into fields.

/** A row's fields: text as PostgreSQL wrote it, `null` for SQL NULL. Valid only during the call. */
export type CopyFields = (string | null)[];

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** A field with backslash escapes (COPY TO writes only \\, \b, \f, \n, \r, \t and \v) as its value. */
function unescapeField(field: string): string | null {
  if (field === '\\N') return null;
  return field.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c);
}

/**
 * Calls `onRow` with the fields of every row of `stream`, in order; resolves with the number of rows.
 * The fields array is reused from row to row: copy what must outlive the call.
 */
export async function forEachCopyRow(stream: AsyncIterable<Buffer>, onRow: (fields: CopyFields) => void): Promise<number> {
  let rows = 0;
  let rest: Buffer | null = null;
  const fields: CopyFields = [];
  for await (const chunk of stream) {
    const buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
    const last = buf.lastIndexOf(10);
    if (last === -1) {
      rest = buf;
      continue;
    }
    rest = last + 1 < buf.length ? buf.subarray(last + 1) : null;
    const text = buf.toString('utf8', 0, last + 1);
    // Backslashes are rare (escapes and \N): without any in the chunk, every field is its own text.
    const escaped = text.includes('\\');
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf('\n', pos);
      let n = 0;
      let from = pos;
      for (;;) {
        const tab = text.indexOf('\t', from);
        const end = tab === -1 || tab > nl ? nl : tab;
        const field = text.substring(from, end);
        fields[n++] = escaped && field.includes('\\') ? unescapeField(field) : field;
        if (end === nl) break;
        from = end + 1;
      }
      fields.length = n;
      onRow(fields);
      rows++;
      pos = nl + 1;
    }
  }
  if (rest?.length) throw new Error('the COPY stream ended inside a row');
  return rows;
}
