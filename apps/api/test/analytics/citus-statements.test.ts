// Statements Citus refuses, found in the source before they reach a Citus test: the main run uses one
// PostgreSQL, which takes them, and the Citus lane runs only the suites touching analytics data. A table with
// a foreign key to a reference table is managed by Citus too (docs/operations/scale-out.md, "Citus"), so the
// rules hold for the control plane's upserts as well.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const SOURCES = ['apps/api/src', 'packages/db/src'];

function sourceFiles(): { file: string; text: string }[] {
  return SOURCES.flatMap((dir) =>
    readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.includes('migrations/'))
      .map((f) => ({ file: path.join(dir, f), text: readFileSync(path.join(ROOT, dir, f), 'utf8') })),
  );
}

/** The places `pattern` matches in the source, as `file:line: text`. */
function found(pattern: RegExp, statementEnd = '`'): string[] {
  const out: string[] = [];
  for (const { file, text } of sourceFiles()) {
    for (const m of text.matchAll(pattern)) {
      const line = text.slice(0, m.index).split('\n').length;
      out.push(`${file}:${line}: ${m[0].split(statementEnd)[0]?.replace(/\s+/g, ' ').slice(0, 120)}`);
    }
  }
  return out;
}

const VOLATILE = String.raw`(?:now\(\)|current_timestamp|current_date|clock_timestamp\(\)|statement_timestamp\(\)|random\(\)|gen_random_uuid\(\))`;

describe('statements Citus refuses', () => {
  it('no upsert takes a time or other non-immutable function in DO UPDATE SET or its WHERE', () => {
    // From DO UPDATE to the end of the statement's template string.
    expect(found(new RegExp(String.raw`do update set[^\x60]*?${VOLATILE}`, 'gi'))).toEqual([]);
  });

  it('the scan finds one when there is one', () => {
    const sample = 'insert into t (a) values (1) on conflict (a) do update set seen_at = now()`';
    expect(sample.match(new RegExp(String.raw`do update set[^\x60]*?${VOLATILE}`, 'gi'))).toHaveLength(1);
  });

  it('no TABLESAMPLE takes its percentage as a parameter (Citus sends it to the workers as text)', () => {
    expect(found(/tablesample\s+\w+\s*\(\s*\$\{\s*p\.add/gi)).toEqual([]);
  });
});
