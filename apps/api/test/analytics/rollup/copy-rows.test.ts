// The rows of a COPY stream in PostgreSQL's text format, as the rollup reads them: fields cut at tabs and
// newlines whatever the chunks' boundaries, escapes and NULL read back, rows of any length.
import { describe, expect, it } from 'vitest';
import { forEachCopyRow } from '../../../src/analytics/rollup/copy-rows.ts';

/** The stream's text in chunks cut at `cuts` (byte offsets). */
async function* chunked(text: string, cuts: number[]) {
  const bytes = Buffer.from(text, 'utf8');
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) yield bytes.subarray(from, cut);
    from = cut;
  }
}

async function rowsOf(text: string, cuts: number[] = []) {
  const rows: (string | null)[][] = [];
  const n = await forEachCopyRow(chunked(text, cuts), (f) => rows.push([...f]));
  expect(n).toBe(rows.length);
  return rows;
}

// What COPY TO writes for: a plain row, a tab and a newline inside values, a NULL, a backslash, non-ASCII text.
const STREAM =
  'human\tv1\t/a\tDE\n' +
  'human\tv1\t/a\\tb\tDE\n' +
  'human\tv1\t\\N\tDE\n' +
  'bot\tv2\t/a\\\\tb\tÄö 日本\n' +
  'bot\tv2\t/a\\nb\tÄö 日本\n' +
  'bot\tv2\t/a\tÄö 日本\n';
const EXPECTED = [
  ['human', 'v1', '/a', 'DE'],
  ['human', 'v1', '/a\tb', 'DE'],
  ['human', 'v1', null, 'DE'],
  ['bot', 'v2', '/a\\tb', 'Äö 日本'],
  ['bot', 'v2', '/a\nb', 'Äö 日本'],
  ['bot', 'v2', '/a', 'Äö 日本'],
];

describe('rows of a COPY stream', () => {
  it('reads every field, escapes and NULL included', async () => {
    expect(await rowsOf(STREAM)).toEqual(EXPECTED);
  });

  it('reads the same rows whatever the chunk boundaries, inside a character included', async () => {
    const length = Buffer.byteLength(STREAM);
    for (let cut = 1; cut < length; cut++) expect(await rowsOf(STREAM, [cut]), `cut at ${cut}`).toEqual(EXPECTED);
    expect(
      await rowsOf(
        STREAM,
        Array.from({ length }, (_, i) => i),
      ),
    ).toEqual(EXPECTED);
  });

  it('reads rows of different lengths, and empty fields', async () => {
    expect(await rowsOf('x\ty\tz\nx\n\t\n')).toEqual([['x', 'y', 'z'], ['x'], ['', '']]);
  });

  it('refuses a stream that ends inside a row', async () => {
    await expect(rowsOf('a\tb\nc\td')).rejects.toThrow(/ended inside a row/);
  });
});
