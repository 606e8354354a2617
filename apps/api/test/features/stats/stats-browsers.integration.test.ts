import { type EventRow, eventRow, type PageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

/** Browsers and operating systems (names, and with major versions): ranked, filtered, and alike from raw rows and rollups. */
describe('stats by browser and operating system', () => {
  let f: StatsFixture;
  let siteId: string;
  const recent = dayAgo('UTC', 1);
  const old = dayAgo('UTC', 120);

  const chrome = { browser: 'Chrome', browserMajor: 131, os: 'Windows', osMajor: null };
  const safari = { browser: 'Safari', browserMajor: 18, os: 'iOS', osMajor: 18 };
  const oldSafari = { browser: 'Safari', browserMajor: 17, os: 'iOS', osMajor: 17 };

  /** Four visits (two Chrome on Windows, two Safari on iOS 17 and 18) and a pageview stored before the columns existed. */
  function traffic(day: string): PageviewRow[] {
    const at = (hour: number) => noonUtc(day, hour);
    return [
      pv(siteId, at(8), { visitor: `${day}-a`, path: '/', ...chrome }),
      pv(siteId, at(9), { visitor: `${day}-a`, path: '/pricing', sessionStart: false, ...chrome }),
      pv(siteId, at(10), { visitor: `${day}-b`, path: '/pricing', ...chrome }),
      pv(siteId, at(11), { visitor: `${day}-c`, path: '/', ...safari }),
      pv(siteId, at(12), { visitor: `${day}-d`, path: '/blog', ...oldSafari }),
      pv(siteId, at(13), { visitor: `${day}-e`, path: '/blog' }),
    ];
  }

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [...traffic(recent), ...traffic(old)]);
    const ev = (extra: Partial<EventRow>): EventRow => eventRow(siteId, noonUtc(recent, 9), { name: 'signup', ...extra });
    await insertRows(f.t.deps.orm, 'events', [ev({ visitor: 'a', ...chrome }), ev({ visitor: 'c', ...safari })]);
    const run = await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true });
    expect(run.failed).toBe(0);
  });
  afterAll(() => f?.close());

  const stats = (q: Record<string, string | number>) => f.get(`/v1/sites/${siteId}/stats`, q);
  const rows = (body: { rows: { value: string | null; counts: Record<string, number> }[] }) =>
    body.rows.map((r) => [r.value, r.counts.sessions]);

  it('ranks visits by browser and by browser version; a row stored before them is unknown', async () => {
    for (const day of [recent, old]) {
      const browsers = await stats({ metrics: 'sessions', by: 'browser', from: day, to: day }).expect(200);
      expect(rows(browsers.body)).toEqual([
        ['Chrome', 2],
        ['Safari', 2],
        [null, 1],
      ]);
      const versions = await stats({ metrics: 'sessions', by: 'browser_version', from: day, to: day }).expect(200);
      expect(rows(versions.body)).toEqual([
        ['Chrome 131', 2],
        ['Safari 17', 1],
        ['Safari 18', 1],
        [null, 1],
      ]);
    }
  });

  it('ranks visits by system, and by system version where the user agent tells one (Windows: the name alone)', async () => {
    for (const day of [recent, old]) {
      const systems = await stats({ metrics: 'sessions', by: 'os', from: day, to: day }).expect(200);
      expect(rows(systems.body)).toEqual([
        ['Windows', 2],
        ['iOS', 2],
        [null, 1],
      ]);
      const versions = await stats({ metrics: 'sessions', by: 'os_version', from: day, to: day }).expect(200);
      expect(rows(versions.body)).toEqual([
        ['Windows', 2],
        ['iOS 17', 1],
        ['iOS 18', 1],
        [null, 1],
      ]);
    }
  });

  it('filters by browser, by version and by system, from raw rows and from rollups alike', async () => {
    for (const day of [recent, old]) {
      const chromeVisits = await stats({ metrics: 'pageviews', by: 'day', 'where.browser': 'Chrome', from: day, to: day }).expect(
        200,
      );
      expect(chromeVisits.body.totals).toMatchObject({ pageviews: 3, sessions: 2, visitors: 2 });
      const v18 = await stats({ metrics: 'sessions', 'where.browser_version': 'Safari 18', from: day, to: day }).expect(200);
      expect(v18.body.totals.sessions).toBe(1);
      const ios = await stats({ metrics: 'sessions', 'where.os': 'iOS', from: day, to: day }).expect(200);
      expect(ios.body.totals.sessions).toBe(2);
      // A name's versions: the pair is kept in rollups.
      const safari = await stats({ metrics: 'sessions', by: 'browser_version', 'where.browser': 'Safari', from: day, to: day });
      expect(safari.status).toBe(200);
      expect(rows(safari.body)).toEqual([
        ['Safari 17', 1],
        ['Safari 18', 1],
      ]);
      if (day === old) expect(safari.body.source).toBe('rollups');
    }
    // Exit pages beside a browser are kept in rollups too.
    const exits = await stats({ metrics: 'sessions', by: 'exit_page', 'where.browser': 'Safari', from: old, to: old }).expect(
      200,
    );
    expect(exits.body.source).toBe('rollups');
    expect(exits.body.rows.map((r: { value: string }) => r.value).sort()).toEqual(['/', '/blog']);
    // Pages of one browser: within the raw window; older days keep the two apart, and say so.
    const pages = await stats({ metrics: 'pageviews', by: 'page', 'where.browser': 'Chrome', from: recent, to: recent }).expect(
      200,
    );
    expect(pages.body.rows.map((r: { value: string }) => r.value)).toEqual(['/pricing', '/']);
    const refused = await stats({ metrics: 'pageviews', by: 'page', 'where.browser': 'Chrome', from: old, to: old }).expect(400);
    expect(refused.body).toMatchObject({ field: 'where.browser', title: expect.stringContaining('page with browser') });
  });

  it('top tables and events know them too', async () => {
    const top = await f.get(`/v1/sites/${siteId}/top/browser`, { from: recent, to: recent }).expect(200);
    expect(top.body).toMatchObject({ dimension: 'browser', metrics: 'sessions', total: 5 });
    expect(top.body.rows[0]).toEqual({ value: 'Chrome', count: 2, share: 40 });
    const events = await stats({ metrics: 'events', by: 'os_version', from: recent, to: recent }).expect(200);
    expect(events.body.rows.map((r: { value: string }) => r.value).sort()).toEqual(['Windows', 'iOS 18']);
  });

  it('an MCP client asks the same: get_site_stats with a browser filter, get_site_top by system version', async () => {
    const token = f.auth.slice('Bearer '.length);
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await modernCall(f.t.url, token, 'tools/call', { name, arguments: args });
      expect(res.status).toBe(200);
      return res.body.result.structuredContent;
    };
    const chrome = await call('get_site_stats', {
      id: siteId,
      metrics: 'sessions',
      by: 'page',
      'where.browser': 'Chrome',
      from: recent,
      to: recent,
    });
    expect(chrome.totals.sessions).toBe(2);
    expect(chrome.rows.map((r: { value: string }) => r.value).sort()).toEqual(['/', '/pricing']);
    const systems = await call('get_site_top', { id: siteId, dimension: 'os_version', from: recent, to: recent });
    expect(systems.rows[0]).toEqual({ value: 'Windows', count: 2, share: 40 });
  });

  it('lists the dimensions and filters in the catalogue', async () => {
    const res = await f.get('/v1/stats/catalogue').expect(200);
    expect(res.body.topDimensions).toMatchObject({ browser: 'sessions', os_version: 'sessions' });
    expect(res.body.metricSets.sessions.filters).toEqual(
      expect.arrayContaining(['browser', 'browser_version', 'os', 'os_version']),
    );
  });
});
