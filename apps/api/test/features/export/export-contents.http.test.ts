// What an export holds beyond its listing: journeys for every day of the range in site-store.ndjson
// (computed for days no one asked about, not only the days whose results were stored), and every
// recorded field of every raw table in the archive, leave reports included as their own kind.
import { COLUMNS, type ColumnKind, insertRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveOf, type ExportAnswer, fetchBytes, linkOf, recordsOf } from '../../support/download.ts';
import { addSessions, emptyRows, insertJourneys } from '../../support/journeys-fixture.ts';
import { createToken } from '../../support/server.ts';
import { dayAgo, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

type Line = Record<string, unknown> & { type: string };

describe('export contents', () => {
  let f: StatsFixture;
  let auth: string;

  beforeAll(async () => {
    f = await statsFixture();
    const { token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['export:read'] });
    auth = `Bearer ${token}`;
  });
  afterAll(() => f.close());

  const exportOf = async (siteId: string, body: Record<string, unknown> = {}) =>
    (await f.t.request.post(`/v1/sites/${siteId}/export`).set('Authorization', auth).send(body).expect(200)).body as ExportAnswer;
  const linesOf = async (url: string): Promise<Line[]> =>
    (await fetchBytes(f.t, url).expect(200)).body
      .toString()
      .trim()
      .split('\n')
      .map((l: string) => JSON.parse(l));

  it('site-store.ndjson holds the journeys of every day of the range with records, days never asked about included', async () => {
    const siteId = await f.site({ settings: { goals: [{ id: 'signup', name: 'Signup', type: 'event', match: 'signup' }] } });
    const [first, second, empty] = [dayAgo('UTC', 4), dayAgo('UTC', 3), dayAgo('UTC', 2)];
    const rows = emptyRows();
    addSessions(rows, siteId, { day: first as string, pages: ['/', '/pricing', { path: '/signup', events: ['signup'] }] }, 2);
    addSessions(rows, siteId, { day: second as string, pages: ['/blog/a', '/blog/b'] });
    await insertJourneys(f.t.deps.orm, rows);
    // No one asked for these days' journeys: nothing of them is stored.
    const stored = await f.t.deps.orm.em
      .fork()
      .getConnection()
      .execute<{ n: string }[]>(`select count(*) as n from result_days where site_id = ? and kind like 'journeys%'`, [siteId]);
    expect(Number(stored[0]?.n)).toBe(0);

    const answer = await exportOf(siteId, { from: first, to: dayAgo('UTC', 1) });
    const journeys = (await linesOf(linkOf(answer, 'site-store.ndjson'))).filter((l) => l.type === 'journeys');
    // One line per UTC day with records and zoom; the day without records has none.
    expect(journeys.map((l) => `${l.day} ${l.zoom}`).sort()).toEqual(
      [
        `${first} element`,
        `${first} page`,
        `${first} section`,
        `${second} element`,
        `${second} page`,
        `${second} section`,
      ].sort(),
    );
    const line = (day: string | undefined, zoom: string) => journeys.find((l) => l.day === day && l.zoom === zoom);
    expect(line(first, 'page')).toMatchObject({ who: 'human', experiments: [] });
    expect(line(first, 'page')?.paths).toEqual([{ steps: ['/', '/pricing', '/signup'], sessions: 2, goals: ['signup'] }]);
    expect(line(second, 'page')?.paths).toEqual([{ steps: ['/blog/a', '/blog/b'], sessions: 1, goals: [] }]);
    expect(line(second, 'section')?.paths).toEqual([expect.objectContaining({ sessions: 1, goals: [] })]);
    expect(journeys.some((l) => l.day === empty)).toBe(false);

    // The manifest counts them.
    const manifest = JSON.parse((await fetchBytes(f.t, linkOf(answer, 'manifest.json')).expect(200)).body.toString());
    const store = manifest.files.find((x: { name: string }) => x.name === 'site-store.ndjson');
    expect(store.counts).toMatchObject({ journeys: 6 });
  });

  /** A value for a column of each kind, never the column's default, so the test sees that it was recorded. */
  function valueFor(column: string, kind: ColumnKind, at: Date): unknown {
    switch (kind.type) {
      case 'time':
        return at;
      case 'text':
        return `${column}-1`.slice(0, kind.max);
      case 'country':
        return 'NL';
      case 'enum':
        return kind.values[0];
      case 'int':
        return Math.min(kind.max, kind.min + 7);
      case 'double':
        return 1.5;
      case 'bool':
        return !(kind.absent ?? false);
      case 'props':
        return { plan: 'pro', 'team size': '12' };
    }
  }

  it('archives every recorded field of every raw table, leave reports as their own kind, listed and counted', async () => {
    const siteId = await f.site();
    const at = new Date(`${dayAgo('UTC', 1)}T07:15:00.250Z`);
    const expected: Record<string, Record<string, unknown>> = {};
    for (const table of Object.keys(COLUMNS) as (keyof typeof COLUMNS)[]) {
      const row: Record<string, unknown> = { siteId };
      const columns: Record<string, unknown> = {};
      for (const [column, prop, kind] of COLUMNS[table]) {
        row[prop] = valueFor(column, kind, at);
        columns[column] = row[prop];
      }
      // `pageview_id` is the same text in every table: the leave report belongs to the pageview.
      await insertRows(f.t.deps.orm, table, [row as never]);
      expected[table] = columns;
    }
    const answer = await exportOf(siteId);
    const files = await archiveOf(f.t, answer);
    const hour = at.toISOString().slice(0, 13);
    expect(files.map((x) => [x.kind, x.name, x.records])).toEqual([
      ['events', `archive/events/${hour}.ndjson.gz`, 1],
      ['page-leaves', `archive/page-leaves/${hour}.ndjson.gz`, 1],
      ['pageviews', `archive/pageviews/${hour}.ndjson.gz`, 1],
      ['requests', `archive/requests/${hour}.ndjson.gz`, 1],
    ]);
    const kindOf: Record<string, string> = { page_leaves: 'page-leaves' };
    for (const [table, columns] of Object.entries(expected)) {
      const file = files.find((x) => x.kind === (kindOf[table] ?? table));
      const [record] = await recordsOf(f.t, file?.url as string);
      for (const [column, value] of Object.entries(columns)) {
        const got = record?.[column];
        if (value instanceof Date) expect(new Date(got as string).getTime(), `${table}.${column}`).toBe(value.getTime());
        else expect(got, `${table}.${column}`).toEqual(value);
      }
      expect(record).toHaveProperty('id');
      expect(record).not.toHaveProperty('site_id');
    }
    const [leave] = await recordsOf(f.t, files.find((x) => x.kind === 'page-leaves')?.url as string);
    expect(leave).toMatchObject({ scroll_depth: 7, time_on_page_ms: 7, interacted: true, pageview_id: 'pageview_id-1' });

    const manifest = JSON.parse((await fetchBytes(f.t, linkOf(answer, 'manifest.json')).expect(200)).body.toString());
    expect(manifest.files.find((x: { name: string }) => x.name === 'archive.json').counts).toEqual({
      files: 4,
      pageviews: 1,
      events: 1,
      requests: 1,
      'page-leaves': 1,
    });
  });
});
