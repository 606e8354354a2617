// History imports over HTTP: every route of the contract, its refusals (400, 401, 403, 404, 409, 413),
// and an import's figures in and out of the stats (created, uploaded, started, run, deleted).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../../src/features/imports/imports-job.ts';
import { type ExportAnswer, fetchBytes, linkOf } from '../../support/download.ts';
import { createToken, ownerWithToken } from '../../support/server.ts';
import { type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';
import { tokenApi } from '../../support/token-api.ts';

const VISITORS = 'imported_visitors_20240101_20240102.csv';
const visitorsCsv = readFileSync(new URL(`./fixtures/plausible/${VISITORS}`, import.meta.url), 'utf8');
const pagesCsv = readFileSync(new URL('./fixtures/plausible/imported_pages_20240101_20240102.csv', import.meta.url), 'utf8');

describe('imports over HTTP', () => {
  let f: StatsFixture;
  let siteId: string;
  let auth: string;
  let readOnly: string;
  const api = () => tokenApi(f.t, () => auth);
  const put = (path: string, body: string, as = auth) =>
    f.t.request.put(path).set('Authorization', as).set('Content-Type', 'text/csv').send(body);

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    auth = `Bearer ${(await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:read', 'sites:write', 'analytics:read', 'export:read'] })).token}`;
    readOnly = `Bearer ${(await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:read'] })).token}`;
  });
  afterAll(() => f?.close());

  const create = async () => (await api().post(`/v1/sites/${siteId}/imports`, { source: 'plausible' }).expect(201)).body;

  it('creates an import waiting for its files, uploads, replaces a file, starts it, and shows it', async () => {
    const imp = await create();
    expect(imp).toMatchObject({
      siteId,
      source: 'plausible',
      status: 'awaiting_files',
      startedAt: null,
      finishedAt: null,
      files: [],
      progress: { rowsRead: 0, rowsStored: 0, badRows: 0 },
      badRowSamples: [],
      days: null,
      skippedDays: [],
      replacedDays: [],
      error: null,
    });
    const base = `/v1/sites/${siteId}/imports/${imp.id}`;
    await api().post(`${base}/start`, {}).expect(409);
    const headerOnly = 'date,visitors,pageviews,bounces,visits,visit_duration\n';
    expect((await put(`${base}/files/${VISITORS}`, headerOnly).expect(200)).body).toEqual({
      name: VISITORS,
      bytes: headerOnly.length,
    });
    // Sent again (a broken upload resumed): the file is replaced, not added.
    expect((await put(`${base}/files/${VISITORS}`, visitorsCsv).expect(200)).body.bytes).toBe(Buffer.byteLength(visitorsCsv));
    expect((await api().get(base).expect(200)).body.files).toEqual([{ name: VISITORS, bytes: Buffer.byteLength(visitorsCsv) }]);
    const started = (await api().post(`${base}/start`, {}).expect(202)).body;
    expect(started.status).toBe('queued');
    expect(started.files).toEqual([{ name: VISITORS, bytes: Buffer.byteLength(visitorsCsv) }]);
    await api().post(`${base}/start`, {}).expect(409);
    const late = await put(`${base}/files/imported_pages_20240101_20240102.csv`, 'date\n').expect(409);
    expect(late.body.title).toMatch(/has started/);
  });

  it('an import run, then deleted: its figures come and go from the stats', async () => {
    const imp = await create();
    const base = `/v1/sites/${siteId}/imports/${imp.id}`;
    await put(`${base}/files/${VISITORS}`, visitorsCsv).expect(200);
    await api().post(`${base}/start`, {}).expect(202);
    await runImport(f.t.deps.orm, imp.id);
    const done = (await api().get(base).expect(200)).body;
    expect(done).toMatchObject({ status: 'done', days: { from: '2024-01-01', to: '2024-01-02' }, files: [] });
    expect(done.finishedAt).not.toBeNull();
    const range = { metrics: 'pageviews', from: '2024-01-01', to: '2024-01-02' };
    const withIt = await api().get(`/v1/sites/${siteId}/stats`, range).expect(200);
    expect(withIt.body.totals.pageviews).toBe(39);
    expect(withIt.body.imported).toEqual({ days: 2, sources: ['plausible'], included: true });
    // The site's export carries the imported figures in its site store, marked as imported.
    const exported = (await api().post(`/v1/sites/${siteId}/export`, {}).expect(200)).body as ExportAnswer;
    const lines = (await fetchBytes(f.t, linkOf(exported, 'site-store.ndjson')).expect(200)).body.toString().trim().split('\n');
    expect(lines.map((l: string) => JSON.parse(l))).toContainEqual({
      type: 'imported',
      day: '2024-01-01',
      metricSet: 'pageviews',
      dimension: '',
      value: '',
      lane: 'human',
      count: 30,
      visitors: 10,
      importId: imp.id,
    });
    await api().del(base).expect(204);
    await api().get(base).expect(404);
    await api().del(base).expect(404);
    const without = await api().get(`/v1/sites/${siteId}/stats`, range).expect(200);
    expect(without.body.totals.pageviews).toBe(0);
    expect(without.body.imported).toBeUndefined();
  });

  it('lists newest first, a page at a time', async () => {
    const other = await f.site();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await api().post(`/v1/sites/${other}/imports`, { source: 'umami' }).expect(201)).body.id);
    const first = (await api().get(`/v1/sites/${other}/imports`, { limit: 2 }).expect(200)).body;
    expect(first.items.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
    const second = (await api().get(`/v1/sites/${other}/imports`, { limit: 2, cursor: first.nextCursor }).expect(200)).body;
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    await api().get(`/v1/sites/${other}/imports`, { cursor: 'nonsense' }).expect(400);
    // Text JavaScript reads as a date and PostgreSQL does not (they answered 500).
    const id = '00000000-0000-4000-8000-000000000000';
    for (const at of ['1', '2024-02-30T00:00:00.000Z', '0000-01-01T00:00:00.000Z']) {
      const refused = await api()
        .get(`/v1/sites/${other}/imports`, { cursor: `${at}_${id}` })
        .expect(400);
      expect(refused.body.field).toBe('cursor');
    }
  });

  it('keeps at most 3 imports not done per site (409), counted before each insert; deleting one makes room', async () => {
    const site = await f.site();
    const made = await Promise.all(
      Array.from({ length: 5 }, () => api().post(`/v1/sites/${site}/imports`, { source: 'plausible' })),
    );
    expect(made.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409]);
    const refused = made.find((r) => r.status === 409);
    expect(refused?.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused?.body.title).toMatch(/3 imports not done yet: start or delete one first/);
    const first = made.find((r) => r.status === 201)?.body.id;
    await api().del(`/v1/sites/${site}/imports/${first}`).expect(204);
    await api().post(`/v1/sites/${site}/imports`, { source: 'plausible' }).expect(201);
    // Another site of the workspace is not held back by this one's.
    await api()
      .post(`/v1/sites/${await f.site()}/imports`, { source: 'plausible' })
      .expect(201);
  });

  // Two exports of one table over overlapping periods were both read, and their rows added up: every day of the
  // overlap counted twice.
  it('refuses a Plausible file of a table another file holds over some of the same days, even sent at once', async () => {
    const site = await f.site();
    const made = (await api().post(`/v1/sites/${site}/imports`, { source: 'plausible' }).expect(201)).body;
    const base = `/v1/sites/${site}/imports/${made.id}`;
    await put(`${base}/files/imported_visitors_20240101_20240131.csv`, visitorsCsv).expect(200);
    // Side by side: fine.
    await put(`${base}/files/imported_visitors_20240201_20240229.csv`, visitorsCsv).expect(200);
    const overlapping = await put(`${base}/files/imported_visitors_20240115_20240215.csv`, visitorsCsv).expect(400);
    expect(overlapping.body).toMatchObject({ field: 'fileName', title: expect.stringMatching(/imported_visitors_2024/) });
    // Another table over the same days: fine.
    await put(`${base}/files/imported_pages_20240101_20240131.csv`, pagesCsv).expect(200);
    // Two overlapping ones at once: one is kept.
    const both = await Promise.all(
      ['imported_visitors_20240301_20240331.csv', 'imported_visitors_20240315_20240415.csv'].map((n) =>
        put(`${base}/files/${n}`, visitorsCsv),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('keeps at most 20 files per import, counted before each is added, when they are uploaded all at once too', async () => {
    // A site of its own: the shared one's imports not done are bounded.
    const site = await f.site();
    const made = (await api().post(`/v1/sites/${site}/imports`, { source: 'plausible' }).expect(201)).body;
    const base = `/v1/sites/${site}/imports/${made.id}`;
    // One day each, side by side (files of one table over the same days are refused on their own).
    const names = Array.from({ length: 26 }, (_, i) => {
      const day = `202401${String(i + 1).padStart(2, '0')}`;
      return `imported_visitors_${day}_${day}.csv`;
    });
    const sent = await Promise.all(names.map((name) => put(`${base}/files/${name}`, visitorsCsv)));
    expect(sent.filter((r) => r.status === 200)).toHaveLength(20);
    for (const refused of sent.filter((r) => r.status !== 200)) {
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ field: 'fileName', title: expect.stringMatching(/at most 20 files/) });
    }
    expect((await api().get(base).expect(200)).body.files).toHaveLength(20);
  });

  it('refuses a bad source, a bad file name, a file of another format, and a declared body past 200 MB', async () => {
    const bad = await api().post(`/v1/sites/${siteId}/imports`, { source: 'matomo' }).expect(400);
    expect(bad.body.title).toMatch(/plausible, umami or ga4/);
    const base = `/v1/sites/${siteId}/imports/${(await create()).id}`;
    const name = await put(`${base}/files/report.xlsx`, 'x').expect(400);
    expect(name.body.title).toMatch(/ending in \.csv/);
    const other = await put(`${base}/files/imported_pages_20240101_20240102.csv`, 'date,page,visitors\n2024-01-01,/,1\n').expect(
      400,
    );
    expect(other.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(other.body.title).toMatch(/lacks the column pageviews/);
    const big = await fetch(`${f.t.url}${base}/files/${VISITORS}`, {
      method: 'PUT',
      headers: { authorization: auth, 'content-length': String(201 * 1024 * 1024) },
      body: 'date',
    }).catch((e: unknown) => e);
    if (big instanceof Response) {
      expect(big.status).toBe(413);
      expect(((await big.json()) as { title: string }).title).toMatch(/at most 200 MB/);
    }
    expect((await api().get(base).expect(200)).body.files).toEqual([]);
  });

  it('401 without credentials, 403 without sites:write, 404 for an unknown import or another workspace’s site', async () => {
    const imp = await create();
    const base = `/v1/sites/${siteId}/imports/${imp.id}`;
    await f.t.request.post(`/v1/sites/${siteId}/imports`).send({ source: 'plausible' }).expect(401);
    await f.t.request.put(`${base}/files/${VISITORS}`).send(visitorsCsv).expect(401);
    const ro = tokenApi(f.t, () => readOnly);
    await ro.get(base).expect(200);
    await ro.post(`/v1/sites/${siteId}/imports`, { source: 'plausible' }).expect(403);
    await ro.post(`${base}/start`, {}).expect(403);
    await ro.del(base).expect(403);
    const denied = await put(`${base}/files/${VISITORS}`, visitorsCsv, readOnly).expect(403);
    expect(denied.body.title).toMatch(/sites:write/);
    await api().get(`/v1/sites/${siteId}/imports/00000000-0000-4000-8000-000000000000`).expect(404);
    await put(`/v1/sites/${siteId}/imports/00000000-0000-4000-8000-000000000000/files/${VISITORS}`, visitorsCsv).expect(404);
    const stranger = await ownerWithToken(f.t.deps, ['sites:read', 'sites:write']);
    await tokenApi(f.t, () => stranger.auth)
      .get(base)
      .expect(404);
    await put(`${base}/files/${VISITORS}`, visitorsCsv, stranger.auth).expect(404);
  });
});
