// POST /v1/sites/{id}/export and GET /v1/downloads/{token} over HTTP: the five files and the raw-record
// files they list, read back through their links without credentials; what no file may hold; links that
// are forged (404), made by no export (404) or past their hour (410); the budgets per site and workspace.

import { existsSync } from 'node:fs';
import { readdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { Site } from '@us/db';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sweepExports } from '../../../src/features/export/export-sweep.ts';
import { storedDays } from '../../../src/features/export/files.ts';
import { makeLink } from '../../../src/features/export/links.ts';
import { DataDirCopies, exportsDirOf } from '../../../src/features/export/storage.ts';
import { internalKeyOf } from '../../../src/features/internal-link/internal-key.ts';
import { fetchBytes } from '../../support/download.ts';
import { createToken } from '../../support/server.ts';
import { insertRows, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

interface ExportAnswer {
  id: string;
  files: { name: string; url: string; expiresAt: string }[];
  archive: { files: number; records: number; complete: boolean };
}

describe('site export', () => {
  let f: StatsFixture;
  let auth: string;
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const at = (hour: number, minute = 0) =>
    new Date(`${day}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00.123456Z`);

  beforeAll(async () => {
    f = await statsFixture();
    ({ token: auth } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['export:read'] }));
    auth = `Bearer ${auth}`;
  });
  afterAll(() => f.close());

  /** Exports this file's workspace has made. */
  let made = 0;
  const exportOf = async (siteId: string, body: Record<string, unknown> = {}) => {
    const res = await f.t.request.post(`/v1/sites/${siteId}/export`).set('Authorization', auth).send(body);
    if (res.status === 200) made++;
    return res;
  };
  /** A download as anyone would fetch it: the link alone, no credentials. */
  const fetchLink = (url: string) => fetchBytes(f.t, url);

  it('answers five files whose links give the site, its rollups and every raw record of each hour', async () => {
    const siteId = await f.site({ settings: { goals: [{ id: 'signup', name: 'Signup', type: 'event', match: 'signup' }] } });
    const rows = [
      pv(siteId, at(9, 1), { path: '/a' }),
      pv(siteId, at(9, 59), { path: '/b' }),
      pv(siteId, at(14, 30), { path: '/c' }),
    ];
    await insertRows(f.t.deps.orm, 'pageviews', rows);
    await f.t.deps.orm.em
      .getConnection()
      .execute(`insert into search_weeks (site_id, source, week, clicks) values (?, 'secondary', '2026-11-16', 31)`, [siteId]);
    const res = await exportOf(siteId);
    expect(res.status).toBe(200);
    const body = res.body as ExportAnswer;
    expect(body.files.map((x) => x.name)).toEqual([
      'settings.json',
      'site-store.ndjson',
      'rollups.ndjson',
      'archive.json',
      'manifest.json',
    ]);
    expect(body.archive).toEqual({ files: 2, records: 3, complete: true });
    const link = (name: string) => body.files.find((x) => x.name === name)?.url as string;

    const settings = JSON.parse((await fetchLink(link('settings.json')).expect(200)).body.toString());
    expect(settings).toMatchObject({ id: siteId, name: 'Stats site', timezone: 'UTC', hostnames: [] });
    expect(settings.settings.goals[0].id).toBe('signup');

    const store = (await fetchLink(link('site-store.ndjson')).expect(200)).body.toString().trim().split('\n');
    expect(JSON.parse(store[0] as string)).toMatchObject({ type: 'settings', id: siteId });
    expect(store.map((l: string) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({ type: 'search-week', source: 'secondary', week: '2026-11-16', clicks: 31, links: null }),
    );

    const archive = JSON.parse((await fetchLink(link('archive.json')).expect(200)).body.toString());
    expect(archive.files.map((x: { name: string; records: number }) => [x.name, x.records])).toEqual([
      [`archive/pageviews/${day}T09.ndjson.gz`, 2],
      [`archive/pageviews/${day}T14.ndjson.gz`, 1],
    ]);
    const hour9 = await fetchLink(archive.files[0].url).expect(200).expect('content-type', /gzip/);
    const records = gunzipSync(hour9.body)
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r: { path: string }) => r.path)).toEqual(['/a', '/b']);
    expect(records[0]).not.toHaveProperty('site_id');

    const manifest = JSON.parse((await fetchLink(link('manifest.json')).expect(200)).body.toString());
    expect(manifest.files.find((x: { name: string }) => x.name === 'archive.json').counts).toMatchObject({
      files: 2,
      pageviews: 3,
    });
  });

  it('reads an hour of more than one page of records exactly once each, in time order', async () => {
    const siteId = await f.site();
    const rows = Array.from({ length: 5003 }, (_, i) => pv(siteId, at(11, Math.floor(i / 100)), { path: `/p${i}` }));
    await insertRows(f.t.deps.orm, 'pageviews', rows);
    const body = (await exportOf(siteId, { from: day, to: day })).body as ExportAnswer;
    const archive = JSON.parse((await fetchLink(body.files[3]?.url as string).expect(200)).body.toString());
    const file = await fetchLink(archive.files[0].url).expect(200);
    const paths = gunzipSync(file.body)
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).path as string);
    expect(paths.length).toBe(5003);
    expect(new Set(paths).size).toBe(5003);
  });

  it('lists every rollup row once over many pages, day by day, and the daily totals in day order', async () => {
    const siteId = await f.site();
    const other = await f.site();
    const days = ['2026-10-01', '2026-10-02', '2026-10-03'];
    const rows: [string, string, string, string, string, number, number][] = [];
    for (const set of ['events', 'pageviews', 'sessions']) {
      for (const lane of ['bot', 'human']) {
        for (const d of days) {
          rows.push([d, set, '', '', lane, 1000, 10]);
          for (let v = 0; v < 400; v++) rows.push([d, set, 'page', `/p${String(v).padStart(3, '0')}`, lane, v, 1]);
        }
      }
    }
    const conn = f.t.deps.orm.em.getConnection();
    const column = (i: number) => `{${rows.map((r) => `"${r[i]}"`).join(',')}}`;
    for (const site of [siteId, other]) {
      await conn.execute(
        `insert into daily_rollups (site_id, day, metric_set, dimension, value, lane, count, visitors)
           select ?::uuid, * from unnest(?::date[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[])`,
        [site, ...[0, 1, 2, 3, 4, 5, 6].map(column)],
      );
    }
    const body = (await exportOf(siteId)).body as ExportAnswer;
    const link = (name: string) => body.files.find((x) => x.name === name)?.url as string;
    const key = (r: Record<string, unknown>) => [r.day, r.metricSet, r.dimension, r.value, r.lane] as string[];
    const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) => {
      const [x, y] = [key(a), key(b)];
      const i = x.findIndex((v, n) => v !== y[n]);
      return i < 0 ? 0 : (x[i] as string) < (y[i] as string) ? -1 : 1;
    };

    const exported = (await fetchLink(link('rollups.ndjson')).expect(200)).body.toString().trim().split('\n');
    const got = exported.map((l: string) => JSON.parse(l) as Record<string, unknown>);
    expect(got).toHaveLength(rows.length);
    const expected = rows
      .map(([d, metricSet, dimension, value, lane, count, visitors]) => ({
        day: d,
        metricSet,
        dimension,
        value,
        lane,
        count,
        visitors,
      }))
      .sort(byKey);
    expect(got).toEqual(expected);

    const store = (await fetchLink(link('site-store.ndjson')).expect(200)).body.toString().trim().split('\n');
    const totals = store.map((l: string) => JSON.parse(l)).filter((r: { type: string }) => r.type === 'daily-totals');
    expect(totals.map((r: Record<string, unknown>) => `${r.day} ${r.metricSet} ${r.lane}`)).toEqual(
      days.flatMap((d) =>
        ['events', 'pageviews', 'sessions'].flatMap((set) => ['bot', 'human'].map((lane) => `${d} ${set} ${lane}`)),
      ),
    );
    expect(totals[0]).toMatchObject({ count: 1000, visitors: 10 });
  });

  // The defect: the listing counted the hour the export was made in as it stood then; the hour's file, written at
  // its first download, held what came after too, and the counts of archive.json and manifest.json were wrong.
  it('holds in the current hour’s file exactly the records its listing counted: those before the export', async () => {
    const siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, new Date(Date.now() - 50), { path: '/before' })]);
    const answer = (await exportOf(siteId).then((r) => r.body)) as ExportAnswer;
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, new Date(Date.now() + 50), { path: '/after' })]);
    const archive = JSON.parse(
      (await fetchLink(answer.files.find((x) => x.name === 'archive.json')?.url as string).expect(200)).body.toString(),
    );
    let listed = 0;
    const paths: string[] = [];
    for (const file of archive.files as { url: string; records: number }[]) {
      listed += file.records;
      const body = gunzipSync((await fetchLink(file.url).expect(200)).body)
        .toString()
        .trim();
      paths.push(...body.split('\n').map((l) => JSON.parse(l).path as string));
    }
    expect(paths).toEqual(['/before']);
    expect(listed).toBe(1);
  });

  // A busy site's stored journeys day is megabytes: a page of 2,000 stored days read whole ran the API out of memory.
  it('writes stored days a bounded number of bytes at a time, each as stored, in key order', async () => {
    const siteId = await f.site();
    const stored = [
      { kind: 'visits', spec: 'a', day: '2026-11-01', rows: [{ v: 1 }] },
      {
        kind: 'journeys',
        spec: 'page',
        day: '2026-11-02',
        rows: { groups: Array.from({ length: 500 }, (_, i) => [`/p${i}`, i]) },
      },
      { kind: 'journeys', spec: 'page', day: '2026-11-01', rows: { groups: [['/é "quoted"', 1]] } },
      { kind: 'goals', spec: 'signup', day: '2026-11-03', rows: [] },
    ];
    for (const r of stored) {
      await f.t.deps.orm.em
        .getConnection()
        .execute(
          `insert into result_days (site_id, kind, spec, day, rows, seen, computed_at) values (?, ?, ?, ?::date, ?::jsonb, 0, now())`,
          [siteId, r.kind, r.spec, r.day, JSON.stringify(r.rows)],
        );
    }
    const read = async (batchBytes: number) => {
      const out: unknown[] = [];
      for await (const line of storedDays(f.t.deps.orm.em.fork(), siteId, batchBytes)) {
        expect(line.endsWith('\n')).toBe(true);
        out.push(JSON.parse(line));
      }
      return out;
    };
    const expected = [...stored]
      .sort((a, b) => `${a.kind} ${a.spec} ${a.day}`.localeCompare(`${b.kind} ${b.spec} ${b.day}`))
      .map((r) => ({ type: 'stored-day', ...r }));
    // One row a batch (past the bound at once), and all in one.
    expect(await read(1)).toEqual(expected);
    expect(await read(64 * 1024 * 1024)).toEqual(expected);
  });

  it('puts no key, secret, address or user agent in any file', async () => {
    const siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, at(8))]);
    const em = f.t.deps.orm.em.fork();
    const site = await em.findOneOrFail(Site, { id: siteId });
    const internalKey = internalKeyOf(f.t.deps.ciphers, site) as string;
    expect(internalKey).toMatch(/^[0-9a-f]{64}$/);
    const keys = await em
      .getConnection()
      .execute<{ secret_hash: string }[]>('select * from site_keys where site_id = ?', [siteId]);
    const body = (await exportOf(siteId)).body as ExportAnswer;
    let all = '';
    for (const file of body.files) all += (await fetchLink(file.url).expect(200)).body.toString();
    const archive = JSON.parse((await fetchLink(body.files[3]?.url as string)).body.toString());
    for (const x of archive.files) all += gunzipSync((await fetchLink(x.url).expect(200)).body).toString();
    expect(all).not.toContain(internalKey);
    expect(all).not.toContain(site.internalKeyEnc);
    // Every secret-bearing column of the site's keys (their hashes, sealed values, prefixes).
    for (const k of keys) {
      for (const [name, v] of Object.entries(k)) {
        if (/secret|hash|enc|prefix/i.test(name) && typeof v === 'string' && v.length >= 8) expect(all).not.toContain(v);
      }
    }
    expect(all.match(/.{0,60}(internal_?key|pass_?key|secret|Mozilla|user.?agent|"ip").{0,60}/gi)).toBeNull();
  });

  it('refuses forged links and links no export made (404) and links past their hour (410)', async () => {
    const siteId = await f.site();
    const body = (await exportOf(siteId)).body as ExportAnswer;
    const url = body.files[0]?.url as string;
    const forged = `${url.slice(0, -4)}0000`;
    const r404 = await fetchLink(forged)
      .expect(404)
      .expect('content-type', /problem\+json/);
    expect(JSON.parse(r404.body.toString()).title).toMatch(/not made by an export/);
    const cipher = f.t.deps.ciphers.downloads;
    const noExport = makeLink(cipher, '00000000-0000-4000-8000-000000000000', 'settings.json');
    await f.t.request.get(`/v1/downloads/${noExport.token}`).expect(404);
    await f.t.request.get('/v1/downloads/%E0%A4%A').expect(404);
    await f.t.request.get('/v1/downloads/').expect(404);
    const old = makeLink(cipher, body.id, 'settings.json', Date.now() - 3601_000);
    const r410 = await f.t.request.get(`/v1/downloads/${old.token}`).expect(410);
    expect(r410.body).toMatchObject({ type: '/problems/gone', code: 'gone', status: 410, title: /expired/ });
    // A raw-record file the export did not list.
    const unlisted = makeLink(cipher, body.id, `archive/pageviews/${day}T03.ndjson.gz`);
    await f.t.request.get(`/v1/downloads/${unlisted.token}`).expect(404);
  });

  it('lists the download route in the OpenAPI document, without credentials, with its 404 and 410', async () => {
    const doc = (await f.t.request.get('/v1/openapi.json').expect(200)).body;
    const get = doc.paths['/v1/downloads/{token}']?.get;
    expect(get.security).toEqual([]);
    expect(Object.keys(get.responses).sort()).toEqual(['200', '404', '410']);
    expect(doc.paths['/v1/sites/{id}/export']?.post['x-mcp-tool']).toBe('export_site');
  });

  it('refuses bad ranges with the field, other workspaces’ sites with 404 and tokens without export:read with 403', async () => {
    const siteId = await f.site();
    const bad = await exportOf(siteId, { from: '2026-02-30' });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('from');
    const order = await exportOf(siteId, { from: '2026-11-20', to: '2026-11-10' });
    expect(order.status).toBe(400);
    expect(order.body).toMatchObject({ field: 'from' });
    expect((await exportOf('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const forbidden = await f.post(`/v1/sites/${siteId}/export`, {}).expect(403);
    expect(forbidden.body.title).toMatch(/export:read/);
  });

  it('keeps a copy of each data file as first sent: later downloads get the same bytes, for a day', async () => {
    const siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, at(16, 5), { path: '/first' })]);
    const body = (await exportOf(siteId)).body as ExportAnswer;
    const archive = JSON.parse((await fetchLink(body.files[3]?.url as string)).body.toString());
    const url = archive.files.find((x: { kind: string }) => x.kind === 'pageviews').url as string;
    const first = (await fetchLink(url).expect(200)).body as Buffer;
    const dir = path.join(exportsDirOf(f.t.deps.env.DATA_DIR), body.id);
    await vi.waitFor(() => expect(existsSync(path.join(dir, `archive/pageviews/${day}T16.ndjson.gz`))).toBe(true));
    // A record arriving later for that hour is not in the copy: the file stays what was first sent.
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, at(16, 40), { path: '/later' })]);
    const again = (await fetchLink(url).expect(200)).body as Buffer;
    expect(gunzipSync(again).toString()).toBe(gunzipSync(first).toString());
    expect(gunzipSync(again).toString()).not.toContain('/later');

    // A day later the export is swept: its row (its links are then 404) and this node's copies. Made two days back
    // rather than swept two days ahead: a sweep ahead took every other suite's exports of the shared database too.
    await f.t.deps.orm.em
      .getConnection()
      .execute(`update exports set created_at = created_at - interval '2 days' where id = ?`, [body.id]);
    const twoDaysBack = new Date(Date.now() - 2 * 86_400_000);
    await utimes(dir, twoDaysBack, twoDaysBack);
    const swept = await sweepExports(f.t.deps.orm, new DataDirCopies(exportsDirOf(f.t.deps.env.DATA_DIR)), new Date());
    expect(swept.rows).toBeGreaterThan(0);
    expect(swept.copies).toBeGreaterThan(0);
    expect(existsSync(dir)).toBe(false);
    await fetchLink(body.files[0]?.url as string).expect(404);
  });

  it('makes at most two files of a workspace from the database at once (429 with Retry-After), listings included; kept copies still come', async () => {
    const siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, at(5)), pv(siteId, at(6))]);
    const body = (await exportOf(siteId)).body as ExportAnswer;
    const archive = JSON.parse((await fetchLink(body.files[3]?.url as string).expect(200)).body.toString());
    const [five, six] = archive.files.map((x: { url: string }) => x.url) as [string, string];
    await fetchLink(five).expect(200);
    // The copy is written as the file streams out and lands just after: wait for it, so the next
    // download of this file is served from it (no slot needed) even on a busy machine.
    const kept = path.join(exportsDirOf(f.t.deps.env.DATA_DIR), body.id, `archive/pageviews/${day}T05.ndjson.gz`);
    await vi.waitFor(() => expect(existsSync(kept)).toBe(true));
    // Two downloads of this workspace under way elsewhere.
    const key = `downloads-running:${f.workspaceId}`;
    expect(await f.t.deps.hot.acquireSlot(key, 'elsewhere-1', 2, 60)).toBe(true);
    expect(await f.t.deps.hot.acquireSlot(key, 'elsewhere-2', 2, 60)).toBe(true);
    try {
      const busy = await fetchLink(six).expect(429);
      expect(busy.headers['retry-after']).toBe('5');
      expect(JSON.parse(busy.body.toString()).title).toMatch(/2 export files being written/);
      await fetchLink(five).expect(200);
      // The listings count their files from the stats pool too: they wait for a slot like the files.
      for (const listing of [body.files[3], body.files[4]]) {
        expect(JSON.parse((await fetchLink(listing?.url as string).expect(429)).body.toString()).title).toMatch(
          /2 export files being written/,
        );
      }
    } finally {
      await f.t.deps.hot.releaseSlot(key, 'elsewhere-1');
      await f.t.deps.hot.releaseSlot(key, 'elsewhere-2');
    }
    await fetchLink(six).expect(200);
    await fetchLink(body.files[4]?.url as string).expect(200);
    // HEAD answers the headers without writing the file, so it takes no slot.
    for (let i = 0; i < 3; i++) await f.t.request.head(new URL(six).pathname).expect(200).expect('content-type', /gzip/);
    expect(await f.t.deps.hot.acquireSlot(key, 'after-heads', 2, 60)).toBe(true);
    await f.t.deps.hot.releaseSlot(key, 'after-heads');
  });

  it('keeps no copy of a file whose writing failed half-way', async () => {
    const copies = new DataDirCopies(path.join(f.t.deps.env.DATA_DIR, 'copies-test'));
    const tee = await copies.tee('e1', 'rollups.ndjson');
    async function* failing() {
      yield 'one line\n';
      throw new Error('the database went away');
    }
    const out = tee(Readable.from(failing()));
    await new Promise((resolve) => out.on('error', resolve).on('close', resolve).resume());
    // The failed copy's part file is removed: nothing of it is left in the export's folder.
    await vi.waitFor(async () => expect(await readdir(path.join(copies.root, 'e1'))).toEqual([]));
    expect(await copies.read('e1', 'rollups.ndjson')).toBeNull();
    // Folders older than the cut are swept; newer ones stay.
    const okTee = await copies.tee('e2', 'settings.json');
    const ok = okTee(Readable.from(['{}\n']));
    await new Promise((resolve) => ok.on('end', resolve).resume());
    await vi.waitFor(async () => expect(await copies.read('e2', 'settings.json')).not.toBeNull());
    await utimes(path.join(copies.root, 'e1'), new Date(0), new Date(0));
    expect(await copies.sweep(new Date(Date.now() - 60_000))).toBe(1);
    expect(await copies.read('e2', 'settings.json')).not.toBeNull();
  });
  // The fault: a full copy per export and download, kept a day, filled DATA_DIR, where the rows saved at a stop
  // and the embedded database live too.
  it('keeps no copy while the disk is short of space, and still sends the file', async () => {
    const short = new DataDirCopies(path.join(f.t.deps.env.DATA_DIR, 'copies-short'), async () => ({
      free: 1024 ** 3,
      total: 100 * 1024 ** 3,
    }));
    const out = (await short.tee('e3', 'settings.json'))(Readable.from(['{"a":1}\n']));
    let sent = '';
    await new Promise((resolve) => out.on('data', (c) => (sent += c)).on('end', resolve));
    expect(sent).toBe('{"a":1}\n');
    expect(await readdir(path.join(short.root, 'e3'))).toEqual([]);
    expect(await short.read('e3', 'settings.json')).toBeNull();
  });

  // The attack: many exports at once, each counting a site's whole raw history on the stats pool, outside the
  // workspace's slots: they held the pool's connections for every tenant.
  it("lists an export's records in one of the workspace's stats slots: 429 when they are all taken, no export spent", async () => {
    const siteId = await f.site();
    const key = `stats-running:${f.workspaceId}`;
    const limit = f.t.deps.env.STATS_CONCURRENT_PER_WORKSPACE;
    const holders = Array.from({ length: limit }, (_, i) => `question-${i}`);
    for (const h of holders) expect(await f.t.deps.hot.acquireSlot(key, h, limit, 60)).toBe(true);
    try {
      const busy = await exportOf(siteId);
      expect(busy.status).toBe(429);
      expect(busy.body.title).toMatch(/stats questions running/);
      expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      for (const h of holders) await f.t.deps.hot.releaseSlot(key, h);
    }
    // Refused for the slot, it spent none of the site's 5 exports an hour.
    for (let i = 0; i < 5; i++) expect((await exportOf(siteId)).status).toBe(200);
    expect((await exportOf(siteId)).status).toBe(429);
  });

  it('allows 5 exports an hour per site and 20 per workspace, then 429 with Retry-After', async () => {
    const first = await f.site();
    for (let i = 0; i < 5; i++) expect((await exportOf(first)).status).toBe(200);
    const sixth = await exportOf(first);
    expect(sixth.status).toBe(429);
    expect(sixth.body.title).toMatch(/site/i);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
    // Other sites still export, until the workspace's 20 are spent (earlier tests of this file made some).
    while (made < 20) {
      const site = await f.site();
      for (let i = 0; i < 5 && made < 20; i++) expect((await exportOf(site)).status).toBe(200);
    }
    const spared = await f.site();
    const over = await exportOf(spared);
    expect(over.status).toBe(429);
    expect(over.body.title).toMatch(/workspace/i);
    // Refused by the workspace's hour, the site spent none of its own: the workspace's refusal stays the answer.
    for (let i = 0; i < 6; i++) expect((await exportOf(spared)).body.title).toMatch(/workspace/i);
    expect(await f.t.deps.hot.get(`export:site:${spared}`)).toBe('0');
  });
});
