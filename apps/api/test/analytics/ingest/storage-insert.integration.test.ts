// The raw-table insert sends each column as one bound array in PostgreSQL's binary format (`insert … select
// from unnest(…)`): values that are special inside array literals (quotes, backslashes, braces, commas, the
// word NULL, spaces) must come back exactly, nulls stay null, integers of either sign and times keep their
// value, a retried batch inserts nothing, and a batch larger than one statement is stored whole.
import { randomUUID } from 'node:crypto';
import { eventRow, insertRowsTallied, pageviewRow, pageviewRows, requestRow, timeOrderedUuid } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

describe('raw-table insert', () => {
  let t: TestServer;
  let siteId: string;
  let workspaceId: string;
  beforeAll(async () => {
    t = await startTestServer();
    const { workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Insert' })).siteId;
  });
  afterAll(() => t?.close());

  it('stores text that array literals treat specially exactly as given, and nulls as null', async () => {
    const tricky = ['/a"b', '/back\\slash', '/{braces}', '/a,b', 'NULL', '/ spaced ', '/ünï-😀', `/${'x'.repeat(2000)}`];
    const at = new Date();
    const rows = tricky.map((path, i) =>
      pageviewRow(siteId, at, {
        id: randomUUID(),
        path,
        utmSource: i % 2 ? path.slice(0, 200) : undefined,
        referrerHost: i === 0 ? null : 'ref.example',
        windowWidth: i === 1 ? null : 1000 + i,
        asn: i === 2 ? 4_000_000_000 : 64_500 + i,
      }),
    );
    const first = await insertRowsTallied(t.deps.orm, 'pageviews', rows);
    expect(first.inserted).toBe(tricky.length);
    expect(first.tally).toEqual([
      { siteId, month: `${at.toISOString().slice(0, 7)}-01`, human: tricky.length, total: tricky.length },
    ]);

    const stored = await t.deps.orm.em.getConnection().execute<
      {
        pageview_id: string;
        path: string;
        utm_source: string | null;
        referrer_host: string | null;
        window_width: number | null;
        asn: number | null;
      }[]
    >('select pageview_id, path, utm_source, referrer_host, window_width, asn from pageviews where site_id = ?', [siteId]);
    const byId = new Map(stored.map((r) => [r.pageview_id, r]));
    rows.forEach((r, i) => {
      const s = byId.get(r.pageviewId);
      expect(s?.path, `row ${i}`).toBe(tricky[i]);
      expect(s?.utm_source).toBe(i % 2 ? (tricky[i] as string).slice(0, 200) : null);
      expect(s?.referrer_host).toBe(i === 0 ? null : 'ref.example');
      expect(s?.window_width).toBe(i === 1 ? null : 1000 + i);
      // Outside int4: an identifier that means nothing is dropped, not refused.
      expect(s?.asn).toBe(i === 2 ? null : 64_500 + i);
    });

    // The same batch again (a retried flush): nothing new.
    expect((await insertRowsTallied(t.deps.orm, 'pageviews', rows)).inserted).toBe(0);
  });

  it('stores times to the millisecond, booleans and fractional numbers exactly', async () => {
    const times = [new Date(Date.now() - 3_600_000 + 1), new Date(Date.now() - 999), new Date()];
    const pageviews = times.map((at, i) =>
      pageviewRow(siteId, at, { id: randomUUID(), path: `/times-${i}`, sessionStart: i !== 1 }),
    );
    expect(await insertRowsTallied(t.deps.orm, 'pageviews', pageviews)).toMatchObject({ inserted: 3 });
    const values = [12.5, -0.25, 1e-7, 123_456_789.125, null];
    const events = values.map((value, i) =>
      eventRow(siteId, times[0] as Date, { pageviewId: `ev-${i}`, visitor: 'v-ev', path: '/e', name: `n"${i}\\`, value }),
    );
    expect(await insertRowsTallied(t.deps.orm, 'events', events)).toMatchObject({ inserted: values.length });

    const conn = t.deps.orm.em.getConnection();
    const storedPageviews = await conn.execute<{ path: string; at: Date; session_start: boolean }[]>(
      `select path, at, session_start from pageviews where site_id = ? and path like '/times-%' order by path`,
      [siteId],
    );
    expect(storedPageviews.map((r) => [r.path, new Date(r.at).getTime(), r.session_start])).toEqual(
      times.map((at, i) => [`/times-${i}`, at.getTime(), i !== 1]),
    );
    const storedEvents = await conn.execute<{ name: string; value: number | null }[]>(
      `select name, value from events where site_id = ? and pageview_id like 'ev-%' order by pageview_id`,
      [siteId],
    );
    expect(storedEvents.map((r) => [r.name, r.value === null ? null : Number(r.value)])).toEqual(
      values.map((v, i) => [`n"${i}\\`, v]),
    );
  });

  it('stores negative and large integers, and the day of a day’s first and last millisecond', async () => {
    const conn = t.deps.orm.em.getConnection();
    const today = new Date().toISOString().slice(0, 10);
    const requests = [-1, 0, 100].map((risk, i) =>
      requestRow(siteId, new Date(), { path: `/risk-${i}`, status: 599, durationMs: 2_147_483_647 - i, verified: i === 1, risk }),
    );
    expect(await insertRowsTallied(t.deps.orm, 'requests', requests)).toMatchObject({ inserted: 3 });
    const storedRequests = await conn.execute<{ path: string; risk: number; duration_ms: number; verified: boolean }[]>(
      `select path, risk, duration_ms, verified from requests where site_id = ? and path like '/risk-%' order by path`,
      [siteId],
    );
    expect(storedRequests.map((r) => [r.path, r.risk, r.duration_ms, r.verified])).toEqual([
      ['/risk-0', -1, 2_147_483_647, false],
      ['/risk-1', 0, 2_147_483_646, true],
      ['/risk-2', 100, 2_147_483_645, false],
    ]);

    const times = [new Date(`${today}T00:00:00.000Z`), new Date(`${today}T23:59:59.999Z`), new Date(`${today}T12:34:56.789Z`)];
    const rows = times.map((at, i) => pageviewRow(siteId, at, { id: randomUUID(), path: `/edge-time-${i}` }));
    expect(await insertRowsTallied(t.deps.orm, 'pageviews', rows)).toMatchObject({ inserted: 3 });
    const stored = await conn.execute<{ path: string; at: Date; day: string }[]>(
      `select path, at, to_char(day, 'YYYY-MM-DD') as day from pageviews where site_id = ? and path like '/edge-time-%' order by path`,
      [siteId],
    );
    expect(stored.map((r) => [r.path, new Date(r.at).toISOString(), r.day])).toEqual(
      times.map((at, i) => [`/edge-time-${i}`, at.toISOString(), at.toISOString().slice(0, 10)]),
    );
  });

  it('stores a batch larger than one statement whole, counting each row once', async () => {
    const at = new Date();
    const rows = pageviewRows(siteId, at, 12_345, (i) => ({ id: randomUUID(), path: `/bulk/${i}` }));
    const res = await insertRowsTallied(t.deps.orm, 'pageviews', rows);
    expect(res.inserted).toBe(12_345);
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ n: string }[]>("select count(*)::text as n from pageviews where site_id = ? and path like '/bulk/%'", [siteId]);
    expect(row?.n).toBe('12345');
  });

  it('counts what it stored per site, month and day: new rows, and a batch partly stored before', async () => {
    const other = (await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name: 'Insert 2' })).siteId;
    // The last millisecond of a month and the first of the next: two days, two months.
    const late = new Date(Date.UTC(2026, 9, 31, 23, 59, 59, 999));
    const early = new Date(late.getTime() + 1);
    const rows = [
      pageviewRow(siteId, late, { id: randomUUID() }),
      pageviewRow(siteId, late, { id: randomUUID(), lane: 'bot' }),
      pageviewRow(siteId, early, { id: randomUUID() }),
      pageviewRow(other, early, { id: randomUUID(), lane: 'internal' }),
      pageviewRow(other, early, { id: randomUUID() }),
      pageviewRow(siteId, late, { id: randomUUID() }),
    ];
    const arrivals = async () =>
      Object.fromEntries(
        (
          await t.deps.orm.em
            .getConnection()
            .execute<{ site_id: string; day: string; rows: string }[]>(
              "select site_id, to_char(day, 'YYYY-MM-DD') as day, rows::text from day_arrivals where site_id in (?, ?) and day between '2026-10-31' and '2026-11-01'",
              [siteId, other],
            )
        ).map((r) => [`${r.site_id === siteId ? 'a' : 'b'} ${r.day}`, Number(r.rows)]),
      );
    const byKey = (tally: { siteId: string; month: string; human: number; total: number }[]) =>
      Object.fromEntries(tally.map((x) => [`${x.siteId === siteId ? 'a' : 'b'} ${x.month}`, [x.human, x.total]]));

    const first = await insertRowsTallied(t.deps.orm, 'pageviews', rows.slice(0, 4));
    expect(first.inserted).toBe(4);
    expect(byKey(first.tally)).toEqual({ 'a 2026-10-01': [1, 2], 'a 2026-11-01': [1, 1], 'b 2026-11-01': [0, 1] });
    expect(await arrivals()).toEqual({ 'a 2026-10-31': 2, 'a 2026-11-01': 1, 'b 2026-11-01': 1 });

    // A flush retried after a lost acknowledgement, with two rows that were never stored: only those count.
    const second = await insertRowsTallied(t.deps.orm, 'pageviews', rows);
    expect(second.inserted).toBe(2);
    expect(byKey(second.tally)).toEqual({ 'a 2026-10-01': [1, 1], 'b 2026-11-01': [1, 1] });
    expect(await arrivals()).toEqual({ 'a 2026-10-31': 3, 'a 2026-11-01': 1, 'b 2026-11-01': 2 });
    const [stored] = await t.deps.orm.em.getConnection().execute<{ n: string }[]>(
      'select count(*)::text as n from pageviews where id in (?, ?, ?, ?, ?, ?)',
      rows.map((r) => r.id),
    );
    expect(stored?.n).toBe('6');
  });

  it('gives rows without one a time-ordered id (UUID version 7), growing with time and never repeating', () => {
    const ids = Array.from({ length: 20_000 }, () => timeOrderedUuid());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // In order within a process, however many in one millisecond.
    expect([...ids].sort()).toEqual(ids);
    // The first 48 bits are the time the id was made (or just after, when many were made at once).
    const before = Date.now();
    const ms = Number.parseInt(timeOrderedUuid().replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThan(before + 1000);
  });
});
