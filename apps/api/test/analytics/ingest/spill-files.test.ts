import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSpills, spillRows } from '../../../src/analytics/ingest/spill.ts';

const dirs: string[] = [];
const folder = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spill-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const pageview = (i: number) => ({ id: `pv-${i}`, site_id: 's', at: new Date(1_700_000_000_000 + i), path: `/p${i % 50}` });

describe('spill files', () => {
  it('give back every row with its table and instant, and the lines they could not read', () => {
    const dir = folder();
    const file = spillRows(dir, [
      { table: 'pageviews', rows: [pageview(1), pageview(2)] as never[] },
      { table: 'events', rows: [{ id: 'ev-1', at: new Date(1_700_000_000_000) }] as never[] },
    ]);
    expect(file).not.toBeNull();
    writeFileSync(path.join(dir, 'spill-9999999999999-1.ndjson'), 'not json\n{"table":"nope","row":{}}\n');
    const read = readSpills(dir);
    expect(read.files).toHaveLength(2);
    const byTable = Object.fromEntries(read.rows.map((r) => [r.table, r.rows]));
    expect(byTable.pageviews?.map((r) => (r as { id: string }).id)).toEqual(['pv-1', 'pv-2']);
    expect(byTable.pageviews?.[0]).toMatchObject({ at: new Date(1_700_000_000_001) });
    expect(byTable.events).toHaveLength(1);
    expect(read.unreadable).toEqual(['not json', '{"table":"nope","row":{}}']);
    // Nothing of the temporary name is left.
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  // The fault: the buffer held 200k rows when PostgreSQL was down and the process stopped. Reading them back copied
  // the table's rows once per line (quadratic: minutes before the server listened, at every start again).
  it('reads back a full buffer of spilled rows in one pass', { timeout: 60_000 }, () => {
    const dir = folder();
    const rows = Array.from({ length: 200_000 }, (_, i) => pageview(i));
    spillRows(dir, [{ table: 'pageviews', rows: rows as never[] }]);
    const read = readSpills(dir);
    expect(read.rows[0]?.rows).toHaveLength(200_000);
    expect(read.rows[0]?.rows.at(-1)).toMatchObject({ id: 'pv-199999' });
  });
});
