// The import job against real PostgreSQL: a Plausible export read into imported figures that the stats
// answer from (marked as imported), a run stopped mid-way and resumed ending with the figures of one run,
// days with the site's own data skipped, days of an earlier import replaced, bad rows counted and named,
// per-record (staged) figures counted by distinct visit, a site's imports one at a time across nodes, and
// imports due taking turns a file at a time, workspace by workspace.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { ensurePartitionsForDays, pgPoolOf } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { sweepAbandonedImports } from '../../../src/features/imports/abandoned.ts';
import type { ImportFormat } from '../../../src/features/imports/formats/format.ts';
import { formatOf } from '../../../src/features/imports/formats/index.ts';
import { CHUNK_BYTES, fileChunks, storeFile, UploadReplaced } from '../../../src/features/imports/import-files.ts';
import { IMPORT_COLUMNS, type ImportRow, toImport } from '../../../src/features/imports/import-row.ts';
import { type ImportRunOptions, runDueImports, runImport } from '../../../src/features/imports/imports-job.ts';
import { createUser } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { insertRollups, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

const DIR = new URL('./fixtures/plausible/', import.meta.url);
const PLAUSIBLE = Object.fromEntries(
  readdirSync(DIR)
    .filter((n) => n.endsWith('.csv'))
    .map((n) => [n, readFileSync(new URL(n, DIR), 'utf8')]),
);
/** Records in the sample files (lines after each header). */
const SAMPLE_RECORDS = Object.values(PLAUSIBLE).reduce((n, text) => n + text.trim().split('\n').length - 1, 0);

describe('import job', () => {
  let f: StatsFixture;
  beforeAll(async () => {
    f = await statsFixture();
  });
  afterAll(() => f?.close());

  async function newImport(siteId: string, source: string, files: Record<string, string>): Promise<string> {
    const id = randomUUID();
    await f.t.deps.orm.em
      .fork()
      .execute(`insert into imports (id, site_id, source, status) values (?, ?, ?, 'queued')`, [id, siteId, source]);
    const pool = await pgPoolOf(f.t.deps.orm);
    for (const [name, text] of Object.entries(files)) {
      await storeFile(pool, id, name, [Buffer.from(text)], 10_000_000, () => new Error('too big'));
    }
    return id;
  }

  async function importOf(id: string) {
    const [row] = await f.t.deps.orm.em
      .fork()
      .execute<ImportRow[]>(`select ${IMPORT_COLUMNS} from imports i where i.id = ?`, [id]);
    return toImport(row as ImportRow);
  }

  async function figures(siteId: string) {
    return f.t.deps.orm.em
      .fork()
      .execute<{ day: string; metric_set: string; dimension: string; value: string; count: string; visitors: string }[]>(
        `select to_char(day, 'YYYY-MM-DD') as day, metric_set, dimension, value, count, visitors from imported_rollups
          where site_id = ? order by 1, 2, 3, 4`,
        [siteId],
      );
  }

  async function run(siteId: string, source: string, files: Record<string, string>, opts: ImportRunOptions = {}) {
    const id = await newImport(siteId, source, files);
    await runImport(f.t.deps.orm, id, opts);
    return { id, imp: await importOf(id) };
  }

  // Two uploads of one name at once (a resumed upload while the broken one still trickles in): each wrote chunks into
  // whichever row stood (a duplicate chunk was a 500), or the first's last step marked the second's half file complete.
  it('keeps the later of two uploads of one name sent at once; the earlier stops and leaves it whole', async () => {
    const siteId = await f.site();
    const id = randomUUID();
    await f.t.deps.orm.em.fork().execute(`insert into imports (id, site_id, source) values (?, ?, 'plausible')`, [id, siteId]);
    const pool = await pgPoolOf(f.t.deps.orm);
    const name = 'imported_visitors_20240101_20240102.csv';
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let firstStored!: () => void;
    const stored = new Promise<void>((r) => (firstStored = r));
    async function* slow() {
      yield Buffer.alloc(CHUNK_BYTES, 'a');
      firstStored();
      await held;
      yield Buffer.alloc(CHUNK_BYTES, 'a');
    }
    const earlier = storeFile(pool, id, name, slow(), 10_000_000, () => new Error('too big'));
    // Its first chunk is stored once the second part is asked for.
    await stored;
    const later = Buffer.from('date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,1,1,1,1,0\n');
    expect(await storeFile(pool, id, name, [later], 10_000_000, () => new Error('too big'))).toBe(later.length);
    release();
    await expect(earlier).rejects.toBeInstanceOf(UploadReplaced);
    const parts: Buffer[] = [];
    for await (const chunk of fileChunks(pool, id, name)) parts.push(chunk);
    expect(Buffer.concat(parts).equals(later)).toBe(true);
    const [file] = await f.t.deps.orm.em
      .fork()
      .execute<{ bytes: string; complete: boolean }[]>('select bytes, complete from import_files where import_id = ?', [id]);
    expect(file).toMatchObject({ complete: true });
    expect(Number(file?.bytes)).toBe(later.length);
  });

  it('deletes an import left waiting for its files 30 days, with its files; a newer or a started one stays', async () => {
    const siteId = await f.site();
    const made = async (status: string, daysAgo: number) => {
      const id = await newImport(siteId, 'plausible', { 'imported_visitors_20240101_20240102.csv': 'date,visitors\n' });
      await f.t.deps.orm.em
        .fork()
        .execute(`update imports set status = ?, created_at = now() - make_interval(days => ?) where id = ?`, [
          status,
          daysAgo,
          id,
        ]);
      return id;
    };
    const abandoned = await made('awaiting_files', 31);
    const recent = await made('awaiting_files', 29);
    const queued = await made('queued', 31);
    expect(await sweepAbandonedImports(f.t.deps.orm, { siteIds: [siteId] })).toBe(1);
    const left = await f.t.deps.orm.em
      .fork()
      .execute<{ id: string; files: number }[]>(
        `select i.id::text as id, (select count(*)::int from import_files where import_id = i.id) as files from imports i where i.site_id = ?`,
        [siteId],
      );
    expect(left.map((r) => r.id).sort()).toEqual([recent, queued].sort());
    expect(left.every((r) => r.files === 1)).toBe(true);
    expect(left.map((r) => r.id)).not.toContain(abandoned);
  });

  it('reads a Plausible export into figures the stats and the summary answer from, saying they are imported', async () => {
    const siteId = await f.site();
    const { imp } = await run(siteId, 'plausible', PLAUSIBLE);
    expect(imp).toMatchObject({
      status: 'done',
      files: [],
      progress: { rowsRead: SAMPLE_RECORDS, badRows: 0 },
      days: { from: '2024-01-01', to: '2024-01-02' },
      skippedDays: [],
      replacedDays: [],
      error: null,
    });
    expect(imp.progress.rowsStored).toBe((await figures(siteId)).length);

    const range = { from: '2024-01-01', to: '2024-01-02' };
    const totals = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', ...range }).expect(200);
    expect(totals.body).toMatchObject({
      source: 'rollups',
      totals: { pageviews: 39, sessions: 18, visitors: 15 },
      imported: { days: 2, sources: ['plausible'], included: true },
    });
    const countries = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', by: 'country', ...range }).expect(200);
    expect(countries.body.rows.map((r: { value: string; counts: { sessions: number } }) => [r.value, r.counts.sessions])).toEqual(
      [
        ['FR', 10],
        ['DE', 8],
      ],
    );
    const summary = await f.get(`/v1/sites/${siteId}/summary`, range).expect(200);
    expect(summary.body.measures.sessions.value).toBe(18);
    expect(summary.body.measures.bounceRate.value).toBe(33.3);
    expect(summary.body.measures.fromSearch.value).toBe(7);
    expect(summary.body.imported).toEqual({ days: 2, sources: ['plausible'], included: true });
    // A pair of dimensions is not kept by imports: the answer leaves the imported figures out and says so.
    const pair = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'page', 'where.country': 'DE', ...range })
      .expect(200);
    expect(pair.body.imported).toEqual({ days: 2, sources: ['plausible'], included: false });
    expect(pair.body.totals.pageviews).toBe(0);
  });

  // Plausible's values were stored trimmed only: "/über uns" never grouped with the native "/%C3%BCber%20uns", and one
  // page of 2,047 CJK characters (6 KB, past the index's 2,704 bytes) failed the whole import.
  it('stores Plausible values as intake stores native ones: paths read as URLs, each value bounded', async () => {
    const siteId = await f.site();
    const long = `/${'漢'.repeat(2047)}`;
    const pages = `date,page,visitors,pageviews\n2024-01-01,/über uns,2,3\n2024-01-01,${long},1,1\n2024-01-02,/pricing,1,2\n`;
    const { imp } = await run(siteId, 'plausible', { 'imported_pages_20240101_20240102.csv': pages });
    expect(imp).toMatchObject({ status: 'done', progress: { badRows: 0 } });
    const values = (await figures(siteId)).filter((r) => r.dimension === 'page').map((r) => r.value);
    expect(values).toContain('/%C3%BCber%20uns');
    expect(values).toContain('/pricing');
    expect(values).toHaveLength(3);
    expect(Math.max(...values.map((v) => Buffer.byteLength(v)))).toBeLessThanOrEqual(2048);
  });

  it('a run stopped after some batches resumes at its checkpoint and ends with the figures of one run', async () => {
    const whole = await f.site();
    await run(whole, 'plausible', PLAUSIBLE, { batchRecords: 2 });
    const cut = await f.site();
    const { id, imp: stopped } = await run(cut, 'plausible', PLAUSIBLE, { batchRecords: 2, stopAfterBatches: 4 });
    expect(stopped.status).toBe('running');
    expect(stopped.progress.rowsRead).toBeGreaterThan(0);
    expect(stopped.progress.rowsRead).toBeLessThan(SAMPLE_RECORDS);
    await runImport(f.t.deps.orm, id, { batchRecords: 2, stopAfterBatches: 3 });
    await runImport(f.t.deps.orm, id, { batchRecords: 2 });
    const resumed = await importOf(id);
    expect(resumed.status).toBe('done');
    expect(resumed.progress.rowsRead).toBe(SAMPLE_RECORDS);
    expect(await figures(cut)).toEqual(await figures(whole));
  });

  it('a run cut by PostgreSQL (a restart, a lost connection) keeps its files and resumes at the next run', async () => {
    const whole = await f.site();
    await run(whole, 'plausible', PLAUSIBLE, { batchRecords: 2 });
    const plausible = formatOf('plausible');
    let cutOnce = true;
    const restarting: ImportFormat = {
      ...plausible,
      read: async (name, records, sink) => {
        await plausible.read(name, records, sink);
        if (cutOnce) {
          cutOnce = false;
          throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
        }
      },
    };
    const cut = await f.site();
    const id = await newImport(cut, 'plausible', PLAUSIBLE);
    await expect(runImport(f.t.deps.orm, id, { batchRecords: 2, formatOf: () => restarting })).rejects.toThrow(
      /administrator command/,
    );
    const waiting = await importOf(id);
    expect(waiting.status).toBe('queued');
    expect(waiting.files.length).toBe(Object.keys(PLAUSIBLE).length);
    await runImport(f.t.deps.orm, id, { batchRecords: 2, formatOf: () => restarting });
    expect(await importOf(id)).toMatchObject({ status: 'done', progress: { rowsRead: SAMPLE_RECORDS } });
    expect(await figures(cut)).toEqual(await figures(whole));
  });

  it('a run stopped at a file’s end resumes with the next file, without reading that one again', async () => {
    const whole = await f.site();
    await run(whole, 'plausible', PLAUSIBLE);
    const read: string[] = [];
    const plausible = formatOf('plausible');
    const watched: ImportFormat = {
      ...plausible,
      read: (name, records, sink) => {
        read.push(name);
        return plausible.read(name, records, sink);
      },
    };
    // Batches larger than any file: the first stop is the first file's end.
    const cut = await f.site();
    const { id, imp } = await run(cut, 'plausible', PLAUSIBLE, { formatOf: () => watched, stopAfterBatches: 1 });
    const names = Object.keys(PLAUSIBLE).sort();
    expect(imp.status).toBe('running');
    expect(read).toEqual(names.slice(0, 1));
    read.length = 0;
    await runImport(f.t.deps.orm, id, { formatOf: () => watched });
    expect(read).toEqual(names.slice(1));
    expect((await importOf(id)).status).toBe('done');
    expect(await figures(cut)).toEqual(await figures(whole));
  });

  it('an Umami file stopped part-way is read again from its start: the figures and counts of one run', async () => {
    const events = readFileSync(new URL('./fixtures/umami/website_event.csv', import.meta.url), 'utf8');
    const files = { 'website_event.csv': events, 'website_event_2.csv': events.replaceAll('2026-', '2025-') };
    const records = 2 * (events.trim().split('\n').length - 1);
    const whole = await f.site();
    const one = await run(whole, 'umami', files, { batchRecords: 2 });
    expect(one.imp).toMatchObject({ status: 'done', progress: { rowsRead: records } });
    expect(await figures(whole)).not.toEqual([]);
    const cut = await f.site();
    // Stopped inside the first file, then inside the second (the first one done).
    const { id } = await run(cut, 'umami', files, { batchRecords: 2, stopAfterBatches: 2 });
    await runImport(f.t.deps.orm, id, { batchRecords: 2, stopAfterBatches: 7 });
    await runImport(f.t.deps.orm, id, { batchRecords: 2 });
    const resumed = await importOf(id);
    expect(resumed).toMatchObject({ status: 'done', progress: { rowsRead: records, badRows: one.imp.progress.badRows } });
    expect(await figures(cut)).toEqual(await figures(whole));
  });

  it('a GA4 import stopped after some batches resumes at its checkpoint and ends with the figures of one run', async () => {
    const dir = new URL('./fixtures/ga4/', import.meta.url);
    const files = Object.fromEntries(['pages.csv', 'tech.csv'].map((n) => [n, readFileSync(new URL(n, dir), 'utf8')] as const));
    const whole = await f.site();
    const one = await run(whole, 'ga4', files, { batchRecords: 2 });
    expect(one.imp.status).toBe('done');
    expect(await figures(whole)).not.toEqual([]);
    const cut = await f.site();
    const { id } = await run(cut, 'ga4', files, { batchRecords: 2, stopAfterBatches: 2 });
    await runImport(f.t.deps.orm, id, { batchRecords: 2, stopAfterBatches: 4 });
    await runImport(f.t.deps.orm, id, { batchRecords: 2 });
    const resumed = await importOf(id);
    expect(resumed).toMatchObject({ status: 'done', progress: { rowsRead: one.imp.progress.rowsRead } });
    expect(await figures(cut)).toEqual(await figures(whole));
  });

  it('skips days with the site’s own data and replaces days of an earlier import, listing both', async () => {
    const siteId = await f.site();
    await insertRollups(f.t, siteId, [{ day: '2024-01-02', metricSet: 'pageviews', count: 4, visitors: 3 }]);
    const visitors = {
      'imported_visitors_20240101_20240102.csv': PLAUSIBLE['imported_visitors_20240101_20240102.csv'] as string,
    };
    const first = await run(siteId, 'plausible', visitors);
    expect(first.imp).toMatchObject({ status: 'done', skippedDays: ['2024-01-02'], replacedDays: [] });
    const second = await run(siteId, 'plausible', {
      'imported_visitors_20231231_20240101.csv':
        'date,visitors,pageviews,bounces,visits,visit_duration\n2023-12-31,1,1,1,1,0\n2024-01-01,2,5,1,2,60\n',
    });
    expect(second.imp).toMatchObject({ status: 'done', skippedDays: [], replacedDays: ['2024-01-01'] });
    // 2024-01-01 from the second import only; 2024-01-02 the site's own.
    const res = await f.get(`/v1/sites/${siteId}/stats`, {
      metrics: 'pageviews',
      by: 'day',
      from: '2023-12-31',
      to: '2024-01-02',
    });
    expect(res.body.rows.map((r: { counts: { pageviews: number } }) => r.counts.pageviews)).toEqual([1, 5, 4]);
    expect(res.body.imported).toEqual({ days: 2, sources: ['plausible'], included: true });
  });

  // The rollup job records every day over the raw partitions, those before the site had any data too, with no
  // rollup rows: a site made today that imported its history had its last ~90 days skipped as its own.
  it('imports the days the rollup job recorded without rows: the site had no data of its own there', async () => {
    const siteId = await f.site();
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    await ensurePartitionsForDays(f.t.deps.orm, [new Date(`${day}T00:00:00Z`)]);
    expect((await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true })).empty).toBeGreaterThan(0);
    const [recorded] = await f.t.deps.orm.em
      .fork()
      .execute<{ n: string }[]>(`select count(*) as n from rollup_days where site_id = ? and day = ?`, [siteId, day]);
    expect(Number(recorded?.n)).toBe(1);
    const visitors = `date,visitors,pageviews,bounces,visits,visit_duration\n${day},2,5,1,2,60\n`;
    const { imp } = await run(siteId, 'plausible', { 'imported_visitors_20240101_20240102.csv': visitors });
    expect(imp).toMatchObject({ status: 'done', skippedDays: [] });
    expect(new Set((await figures(siteId)).map((r) => r.day))).toEqual(new Set([day]));
  });

  it('a later import replaces an earlier one’s days only once it is done: while it runs, and if it fails, the earlier figures stand', async () => {
    const siteId = await f.site();
    const dayPageviews = async () =>
      (
        await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'day', from: '2024-01-01', to: '2024-01-02' })
      ).body.rows.map((r: { counts: { pageviews: number } }) => r.counts.pageviews);
    const visitors = 'imported_visitors_20240101_20240102.csv';
    await run(siteId, 'plausible', { [visitors]: PLAUSIBLE[visitors] as string });
    const earlier = await dayPageviews();
    expect(earlier.some((n: number) => n > 0)).toBe(true);
    const later = {
      [visitors]: 'date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,2,500,1,2,60\n2024-01-02,2,700,1,2,60\n',
    };
    // Refused after its first batch (too many rows): it stored that batch, and fails.
    const failed = await run(siteId, 'plausible', later, { batchRecords: 1, maxRows: 1 });
    expect(failed.imp.status).toBe('failed');
    expect(await dayPageviews()).toEqual(earlier);
    // Stopped after its first batch: running, its figures not yet in the answers.
    const { id, imp: running } = await run(siteId, 'plausible', later, { batchRecords: 1, stopAfterBatches: 1 });
    expect(running.status).toBe('running');
    expect(await dayPageviews()).toEqual(earlier);
    await runImport(f.t.deps.orm, id, { batchRecords: 1 });
    expect(await importOf(id)).toMatchObject({ status: 'done', replacedDays: ['2024-01-01', '2024-01-02'] });
    expect(await dayPageviews()).toEqual([500, 700]);
  });

  it('skips the site’s day in progress: its own rows are still arriving', async () => {
    const siteId = await f.site();
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    // Days after today are no history: neither stored nor listed.
    const visitors = `date,visitors,pageviews,bounces,visits,visit_duration\n${yesterday},2,5,1,2,60\n${today},1,1,1,1,0\n2150-01-01,1,1,1,1,0\n2199-12-31,1,1,1,1,0\n`;
    const { imp } = await run(siteId, 'plausible', { 'imported_visitors_20240101_20240102.csv': visitors });
    expect(imp).toMatchObject({ status: 'done', skippedDays: [today], days: { from: yesterday, to: today } });
    expect(new Set((await figures(siteId)).map((r) => r.day))).toEqual(new Set([yesterday]));
  });

  it('two imports of one site never run at once: two nodes leave the later import’s figures, as one node does', async () => {
    // The later import replaces the earlier one's days (replaceEarlier): read side by side, each batch of one
    // would delete what the other stored for its days, and the figures would be a mix of both.
    const later = Object.fromEntries(
      Object.entries(PLAUSIBLE)
        .filter(([name]) => name.includes('visitors') || name.includes('pages_'))
        .map(([name, text]) => [name, text.replace(/(\d+)(\r?\n)/g, (_, n: string, eol: string) => `${Number(n) + 1}${eol}`)]),
    );
    const one = await f.site();
    await run(one, 'plausible', PLAUSIBLE, { batchRecords: 2 });
    await run(one, 'plausible', later, { batchRecords: 2 });
    const expected = await figures(one);

    const two = await f.site();
    const first = await newImport(two, 'plausible', PLAUSIBLE);
    const second = await newImport(two, 'plausible', later);
    // Two nodes' runs of the job at once, batches of two records so that they interleave.
    const nodes = [0, 1].map(() => runDueImports(f.t.deps.orm, { siteIds: [two], batchRecords: 2 }));
    expect((await Promise.all(nodes)).reduce((a, b) => a + b, 0)).toBe(2);
    expect((await importOf(first)).status).toBe('done');
    expect((await importOf(second)).status).toBe('done');
    expect(await figures(two)).toEqual(expected);
  });

  it('a site’s import waits while another node runs one of the site’s, and one whose node stopped is resumed first', async () => {
    const siteId = await f.site();
    const visitors = {
      'imported_visitors_20240101_20240102.csv': PLAUSIBLE['imported_visitors_20240101_20240102.csv'] as string,
    };
    // Made first, queued (its files came last); the other one running on a node that writes as it goes.
    const queued = await newImport(siteId, 'plausible', visitors);
    const running = await newImport(siteId, 'plausible', visitors);
    const db = f.t.deps.orm.em.fork();
    await db.execute(`update imports set status = 'running', heartbeat_at = now() where id = ?`, [running]);
    expect(await runDueImports(f.t.deps.orm, { siteIds: [siteId] })).toBe(0);
    expect((await importOf(queued)).status).toBe('queued');
    // That node stops: its import is taken over and ends before the queued one starts.
    await db.execute(`update imports set heartbeat_at = now() - interval '1 hour' where id = ?`, [running]);
    expect(await runDueImports(f.t.deps.orm, { siteIds: [siteId] })).toBe(2);
    const [a, b] = [await importOf(running), await importOf(queued)];
    expect([a.status, b.status]).toEqual(['done', 'done']);
    expect(Date.parse(a.finishedAt as string)).toBeLessThanOrEqual(Date.parse(b.startedAt as string));
  });

  // A fault: a node's run is slow, not gone (a long batch, a slow database), and after two minutes without a write
  // another node takes the import over from its checkpoint. Both then stored the same records, and the figures
  // were added twice. Here each run pauses at its third record of the file, as a slow run would.
  it('a slow run whose import another run took over stops at its next batch: every record is counted once', async () => {
    const whole = await f.site();
    await run(whole, 'plausible', PLAUSIBLE);
    const expected = await figures(whole);
    const siteId = await f.site();
    const id = await newImport(siteId, 'plausible', PLAUSIBLE);
    const pausing = () => {
      let reached = () => {};
      let release = () => {};
      const atPause = new Promise<void>((r) => {
        reached = r;
      });
      const resumed = new Promise<void>((r) => {
        release = r;
      });
      let paused = false;
      const formatOfPausing = (source: 'plausible'): ImportFormat => {
        const format = formatOf(source) as ImportFormat;
        return {
          ...format,
          read: (name, records, sink) =>
            format.read(
              name,
              (async function* () {
                let n = 0;
                for await (const r of records) {
                  if (++n === 3 && !paused) {
                    paused = true;
                    reached();
                    await resumed;
                  }
                  yield r;
                }
              })(),
              sink,
            ),
        };
      };
      return { atPause, release, formatOf: formatOfPausing as ImportRunOptions['formatOf'] };
    };
    const slow = pausing();
    const first = runImport(f.t.deps.orm, id, { batchRecords: 2, formatOf: slow.formatOf });
    await slow.atPause;
    await f.t.deps.orm.em.fork().execute(`update imports set heartbeat_at = now() - interval '1 hour' where id = ?`, [id]);
    const other = pausing();
    const second = runImport(f.t.deps.orm, id, { batchRecords: 2, formatOf: other.formatOf });
    await other.atPause;
    // The slow run goes on while the other holds the import: it stores nothing more.
    slow.release();
    await first;
    other.release();
    await second;
    expect((await importOf(id)).status).toBe('done');
    expect(await figures(siteId)).toEqual(expected);
  });

  it('a workspace’s many imports take turns a file at a time: another workspace’s import is not held back', async () => {
    // One tenant queues an import for each of its sites; another tenant's import, started later, is read after
    // one file of the first tenant's instead of after all of them, and every import ends with one run's figures.
    const events = readFileSync(new URL('./fixtures/umami/website_event.csv', import.meta.url), 'utf8');
    const umami = { 'website_event.csv': events, 'website_event_2.csv': events.replaceAll('2026-', '2025-') };
    const wholeP = await f.site();
    await run(wholeP, 'plausible', PLAUSIBLE);
    const wholeU = await f.site();
    await run(wholeU, 'umami', umami);

    const read: string[] = [];
    const watched = (source: 'plausible' | 'umami'): ImportFormat => {
      const format = formatOf(source);
      return {
        ...format,
        read: (name, records, sink) => {
          read.push(source);
          return format.read(name, records, sink);
        },
      };
    };
    // Two tenants of their own (the fixture's workspace has had turns in the tests before).
    const tenantSites = async (n: number) => {
      const { workspace } = await createUser(f.t.deps);
      const em = f.t.deps.orm.em.fork();
      const sites = [];
      for (let i = 0; i < n; i++) sites.push((await createSite(em, { workspace: workspace.id })).siteId);
      await em.flush();
      return sites;
    };
    const busy = await tenantSites(2);
    const busyImports = [];
    for (const site of busy) busyImports.push(await newImport(site, 'plausible', PLAUSIBLE));
    const [other] = (await tenantSites(1)) as [string];
    const otherImport = await newImport(other, 'umami', umami);

    await runDueImports(f.t.deps.orm, { siteIds: [...busy, other], formatOf: (s) => watched(s as 'plausible' | 'umami') });
    const files = Object.keys(PLAUSIBLE).length;
    // The other tenant's two files come second and fourth, between the busy tenant's sites taking turns.
    expect(read).toEqual(['plausible', 'umami', 'plausible', 'umami', ...Array(2 * files - 2).fill('plausible')]);
    for (const id of [...busyImports, otherImport]) expect((await importOf(id)).status).toBe('done');
    for (const site of busy) expect(await figures(site)).toEqual(await figures(wholeP));
    expect(await figures(other)).toEqual(await figures(wholeU));
  });

  it('a bad row costs only itself: all counted, the first 100 named by file and line', async () => {
    const siteId = await f.site();
    const lines = ['date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors'];
    for (let i = 0; i < 150; i++) lines.push(`2024-01-0${(i % 2) + 1},example.com,/p,1,1,x${i},,0`);
    lines.push('2024-01-01,example.com,/good,1,1,3,,0');
    lines.push('2024-01-01,example.com,/short,1');
    lines.push('2024-01-01,example.com,"/open,1,1,3,,0');
    const name = 'imported_pages_20240101_20240102.csv';
    const { imp } = await run(siteId, 'plausible', { [name]: `${lines.join('\n')}\n` });
    expect(imp.status).toBe('done');
    expect(imp.progress.badRows).toBe(152);
    expect(imp.badRowSamples).toHaveLength(100);
    expect(imp.badRowSamples[0]).toEqual({ file: name, line: 2, reason: 'pageviews "x0" is not a whole number' });
    expect(await figures(siteId)).toEqual([
      { day: '2024-01-01', metric_set: 'pageviews', dimension: 'page', value: '/good', count: '3', visitors: '1' },
    ]);
  });

  // Each of these failed the whole import (it kept nothing): a NUL quoted in a bad row's reason (jsonb refuses it),
  // a count past what a bigint holds. A country cell of many spaces held the event loop for seconds.
  it('a cell no database takes, or too large, or too long costs only its row', async () => {
    const siteId = await f.site();
    const header = 'date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors';
    const plausible = [
      header,
      '2024-01-01\u0000,example.com,/nul,1,1,3,,0',
      `2024-01-01,example.com,/huge,1,1,${'9'.repeat(400)},,0`,
      ...Array.from({ length: 12 }, () => '2024-01-01,example.com,/many,1,1,999999999999999,,0'),
      '2024-01-01,example.com,/good,1,1,3,,0',
    ];
    const ga4 = [
      '# Demographic details: Country',
      'Country,Date,Active users,New users,Engaged sessions,Engagement rate,Engaged sessions per active user,Average engagement time per active user,Event count,Key events,User key event rate,Total revenue',
      `"x${' '.repeat(60_000)}x",20240101,1,1,1,0.5,1,1,1,0,0,0`,
      `Germany,20240101,${'9'.repeat(400)},1,1,0.5,1,1,1,0,0,0`,
      'Germany,20240101,3,1,1,0.5,1,1,1,0,0,0',
    ];
    const plausibleRun = await run(siteId, 'plausible', { 'imported_pages_20240101_20240102.csv': `${plausible.join('\n')}\n` });
    expect(plausibleRun.imp.status).toBe('done');
    expect(plausibleRun.imp.progress.badRows).toBe(2);
    for (const b of plausibleRun.imp.badRowSamples) expect(b.reason.length).toBeLessThanOrEqual(200);
    expect(JSON.stringify(plausibleRun.imp.badRowSamples)).not.toContain('\\u0000');
    const many = (await figures(siteId)).find((r) => r.value === '/many');
    expect(Number(many?.count)).toBe(Number.MAX_SAFE_INTEGER);
    const other = await f.site();
    const ga4Run = await run(other, 'ga4', { 'demographics.csv': `${ga4.join('\n')}\n` });
    expect(ga4Run.imp.status).toBe('done');
    expect(ga4Run.imp.progress.badRows).toBe(2);
    for (const b of ga4Run.imp.badRowSamples) expect(b.reason.length).toBeLessThanOrEqual(200);
  });

  it('a file whose header is another table’s fails the import, naming the columns expected, and keeps nothing', async () => {
    const siteId = await f.site();
    const { imp } = await run(siteId, 'plausible', {
      'imported_pages_20240101_20240102.csv': PLAUSIBLE['imported_pages_20240101_20240102.csv'] as string,
      'imported_visitors_20240101_20240102.csv': 'date,page,visitors\n2024-01-01,/,1\n',
    });
    expect(imp.status).toBe('failed');
    expect(imp.error).toMatch(/lacks the columns pageviews, bounces, visits, visit_duration/);
    expect(await figures(siteId)).toEqual([]);
  });

  it('files past the row bound fail the import, saying what to do, and keep nothing', async () => {
    const siteId = await f.site();
    const { imp } = await run(siteId, 'plausible', PLAUSIBLE, { maxRows: 5, batchRecords: 2 });
    expect(imp).toMatchObject({ status: 'failed', error: 'The files hold more than 5 rows: import a shorter period at a time' });
    expect(imp.progress.rowsStored).toBe(0);
    expect(await figures(siteId)).toEqual([]);
  });

  it('staged records are summed when every file is read, visitors counted by distinct visit', async () => {
    const staging: ImportFormat = {
      source: 'umami',
      check: (_name, header) => (header.join(',') === 'day,visit,path' ? null : 'expected day,visit,path'),
      async read(_name, records, sink) {
        for await (const { record } of records) {
          await sink.staged([
            {
              day: record.day as string,
              metricSet: 'pageviews',
              dimension: 'page',
              value: record.path as string,
              visitKey: record.visit as string,
              count: 1,
            },
          ]);
        }
      },
    };
    const siteId = await f.site();
    const rows = ['day,visit,path', '2024-02-01,a,/', '2024-02-01,a,/', '2024-02-01,b,/', '2024-02-01,c,/x'];
    const { imp } = await run(
      siteId,
      'umami',
      { 'events-1.csv': `${rows.slice(0, 3).join('\n')}\n`, 'events-2.csv': `${[rows[0], ...rows.slice(3)].join('\n')}\n` },
      { formatOf: () => staging, batchRecords: 1 },
    );
    expect(imp.status).toBe('done');
    expect(await figures(siteId)).toEqual([
      { day: '2024-02-01', metric_set: 'pageviews', dimension: 'page', value: '/', count: '3', visitors: '2' },
      { day: '2024-02-01', metric_set: 'pageviews', dimension: 'page', value: '/x', count: '1', visitors: '1' },
    ]);
    const [left] = await f.t.deps.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from import_staged where site_id = ?', [siteId]);
    expect(Number(left?.n)).toBe(0);
  });
});
