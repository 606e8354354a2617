// Drives an import format the way the job does, without a database: a fixture's CSV split into records
// numbered by line (1 = the header, after any comment lines), and a sink that keeps what it is given and
// adds it up like the job (rows summed per day and key; staged parts summed, their distinct visit keys
// counted as visitors).
import { readFileSync } from 'node:fs';
import type {
  ImportedRow,
  ImportFormat,
  ImportSink,
  NumberedRecord,
  StagedRecord,
} from '../../../../src/features/imports/formats/format.ts';

/** One CSV line's fields (quotes around a field may hold commas and doubled quotes). */
function fieldsOf(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out;
}

export interface CsvFile {
  header: string[];
  records: NumberedRecord[];
}

/** A CSV text as the job reads it: comment lines and blank lines before the header skipped, blank lines left out. */
export function csvOf(text: string, commentPrefix?: string): CsvFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let start = 0;
  while (start < lines.length && (lines[start]?.trim() === '' || (commentPrefix && lines[start]?.startsWith(commentPrefix))))
    start++;
  const header = fieldsOf(lines[start] ?? '');
  const records: NumberedRecord[] = [];
  lines.slice(start + 1).forEach((line, i) => {
    if (line.trim() === '') return;
    const fields = fieldsOf(line);
    records.push({ line: i + 2, record: Object.fromEntries(header.map((h, j) => [h, fields[j] ?? ''])) });
  });
  return { header, records };
}

export const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');

/** Records as the job hands them over. */
export async function* each<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

/** A key's figure as the job stores it. */
export interface Figure {
  count: number;
  visitors: number;
}

export class RecordingSink implements ImportSink {
  readonly rowBatches: ImportedRow[][] = [];
  readonly stagedBatches: StagedRecord[][] = [];
  readonly badLines: [number, string][] = [];

  async rows(rows: ImportedRow[]) {
    this.rowBatches.push(rows);
  }

  async staged(records: StagedRecord[]) {
    this.stagedBatches.push(records);
  }

  bad(line: number, reason: string) {
    this.badLines.push([line, reason]);
  }

  /** Every figure, by `day metricSet dimension=value`, added up like the job. */
  figures(): Map<string, Figure> {
    const out = new Map<string, Figure>();
    const key = (r: { day: string; metricSet: string; dimension: string; value: string }) =>
      `${r.day} ${r.metricSet} ${r.dimension}=${r.value}`;
    for (const r of this.rowBatches.flat()) {
      const f = out.get(key(r)) ?? { count: 0, visitors: 0 };
      out.set(key(r), { count: f.count + r.count, visitors: f.visitors + r.visitors });
    }
    const visitKeys = new Map<string, Set<string>>();
    for (const r of this.stagedBatches.flat()) {
      const f = out.get(key(r)) ?? { count: 0, visitors: 0 };
      f.count += r.count;
      out.set(key(r), f);
      const seen = visitKeys.get(key(r)) ?? new Set();
      seen.add(r.visitKey);
      visitKeys.set(key(r), seen);
      f.visitors = seen.size;
    }
    return out;
  }

  /** The figures of one day and metric set by dimension, `dimension=value` → [count, visitors]. */
  of(day: string, metricSet: string, dimension?: string): Record<string, [number, number]> {
    const prefix = `${day} ${metricSet} `;
    const out: Record<string, [number, number]> = {};
    for (const [k, f] of this.figures()) {
      if (!k.startsWith(prefix)) continue;
      const dv = k.slice(prefix.length);
      if (dimension !== undefined && !dv.startsWith(`${dimension}=`)) continue;
      out[dv] = [f.count, f.visitors];
    }
    return out;
  }
}

/** Reads a CSV text with a format: its check's answer, and the sink after `read` (when the check passed). */
export async function readWith(format: ImportFormat, fileName: string, text: string) {
  const { header, records } = csvOf(text, format.commentPrefix);
  const refusal = format.check(fileName, header);
  const sink = new RecordingSink();
  if (refusal === null) await format.read(fileName, each(records), sink);
  return { refusal, sink };
}
