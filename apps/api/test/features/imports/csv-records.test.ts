import { describe, expect, it } from 'vitest';
import { fieldsOf, MAX_RECORD_BYTES, MAX_RECORD_LINES, readCsv } from '../../../src/features/imports/csv-records.ts';

async function* chunksOf(text: string, size = 1000) {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Every record and bad line of a file, read as an import reads it. */
async function readAll(text: string, opts: { commentPrefix?: string; afterLine?: number; chunk?: number } = {}) {
  const bad: { line: number; reason: string }[] = [];
  const csv = await readCsv(chunksOf(text, opts.chunk), {
    commentPrefix: opts.commentPrefix,
    afterLine: opts.afterLine ?? 0,
    bad: (line, reason) => bad.push({ line, reason }),
  });
  const records: { line: number; record: Record<string, string> }[] = [];
  for await (const r of csv.records) records.push(r);
  return { header: csv.header, records, bad };
}

const GOOD = ['date,page,visits', ...Array.from({ length: 2000 }, (_, i) => `2024-01-01,/p${i},${i}`)];

// Uploaded history files are strangers' text. The CSV library this reader replaced did not recover after some
// unreadable records (the rest of the file was dropped, the import still "done"), and a file of only unreadable
// lines was buffered error by error while its header was looked for (5 MB took 49 s and 800 MB of heap).
describe('reading an uploaded CSV file', () => {
  it.each([
    ['text after a closing quote', '"x"y,3'],
    ['a quote never closed', '"x,3'],
    ['a line longer than the record bound', 'x'.repeat(MAX_RECORD_BYTES + 10)],
  ])('one bad record (%s) costs only its line: every record after it is read', async (_, line) => {
    const lines = [...GOOD];
    lines.splice(3, 0, line);
    const { header, records, bad } = await readAll(`${lines.join('\n')}\n`);
    expect(header).toEqual(['date', 'page', 'visits']);
    expect(records).toHaveLength(2000);
    expect(records.at(-1)).toEqual({ line: 2002, record: { date: '2024-01-01', page: '/p1999', visits: '1999' } });
    expect(bad).toEqual([{ line: 4, reason: expect.stringMatching(/^unreadable CSV/) }]);
  });

  // The attack: lines each opening a quote never closed. Each was the first line of a record read on to the 64 KB
  // bound and then read again from its second line: 512 KB took 217 s of the API's one core.
  it(`lines each opening a quote never closed: each is one bad line, read again at most ${MAX_RECORD_LINES} lines on`, async () => {
    const lines = ['date,page,visits', ...Array.from({ length: 20_000 }, () => 'a"b,"'), ...GOOD.slice(1, 11)];
    const { header, records, bad } = await readAll(`${lines.join('\n')}\n`, { chunk: 1 << 20 });
    expect(header).toEqual(['date', 'page', 'visits']);
    expect(bad).toHaveLength(20_000);
    expect(records.map((r) => r.record.page)).toEqual(GOOD.slice(1, 11).map((l) => l.split(',')[1]));
  });

  it(`a quoted field holds up to ${MAX_RECORD_LINES} line breaks; one holding more is a bad first line`, async () => {
    const within = `"${'x\n'.repeat(MAX_RECORD_LINES - 1)}x"`;
    const past = `"${'y\n'.repeat(MAX_RECORD_LINES + 1)}y"`;
    const ok = await readAll(`a,b\n${within},1\n2,3\n`);
    expect(ok.records.map((r) => r.record.a)).toEqual([within.slice(1, -1), '2']);
    expect(ok.bad).toEqual([]);
    const refused = await readAll(`a,b\n${past},1\n2,3\n`);
    expect(refused.bad[0]).toEqual({ line: 2, reason: expect.stringMatching(/^unreadable CSV/) });
    expect(refused.records.at(-1)?.record).toEqual({ a: '2', b: '3' });
  });

  it('a chunk of short lines without quotes is read in one pass', async () => {
    const { records, bad } = await readAll(`a\n${'1\n'.repeat(500_000)}`, { chunk: 1 << 20 });
    expect(records).toHaveLength(500_000);
    expect(bad).toEqual([]);
  });

  it('a file of only unreadable lines has no header, found within its first records', async () => {
    const { header, records, bad } = await readAll('"x"y,1\n'.repeat(200_000));
    expect(header).toBeNull();
    expect(records).toEqual([]);
    expect(bad.length).toBeLessThanOrEqual(100);
  });

  it('reads quoted fields with line breaks, doubled quotes, a byte order mark, CRLF, comments and empty lines', async () => {
    const text = '\ufeff# exported 2024\r\ndate,"pa\nge",n\r\n2024,"a ""q"",\nb",1\r\n\r\n# a comment with a " quote\n2025,x,2';
    for (const chunk of [1, 3, 1000]) {
      const { header, records, bad } = await readAll(text, { commentPrefix: '#', chunk });
      expect(header).toEqual(['date', 'pa\nge', 'n']);
      expect(records).toEqual([
        { line: 5, record: { date: '2024', 'pa\nge': 'a "q",\nb', n: '1' } },
        { line: 8, record: { date: '2025', 'pa\nge': 'x', n: '2' } },
      ]);
      expect(bad).toEqual([]);
    }
  });

  it('counts a record by its last line, and a resumed file reports nothing before its checkpoint', async () => {
    const text = 'a,b\n"1\n2",3\nbad"x,"y\n4,5\n';
    const all = await readAll(text);
    expect(all.records.map((r) => r.line)).toEqual([3, 5]);
    expect(all.bad).toEqual([{ line: 4, reason: expect.stringMatching(/^unreadable CSV/) }]);
    const resumed = await readAll(text, { afterLine: 4 });
    expect(resumed.records.map((r) => r.line)).toEqual([5]);
    expect(resumed.bad).toEqual([]);
  });

  it('splits fields as CSV does, a quote inside an unquoted field kept as text', () => {
    expect(fieldsOf('a,b,c')).toEqual(['a', 'b', 'c']);
    expect(fieldsOf('a,,')).toEqual(['a', '', '']);
    expect(fieldsOf(',')).toEqual(['', '']);
    expect(fieldsOf('"a,b","c""d"')).toEqual(['a,b', 'c"d']);
    expect(fieldsOf('ab"c,d')).toEqual(['ab"c', 'd']);
    expect(fieldsOf('"open,d')).toBeNull();
    expect(fieldsOf('"x"y,d')).toBeNull();
  });
});
