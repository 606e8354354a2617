import { type EventRow, eventRow, requestRow } from '@us/db';
import { STATS_LIMITS } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORK_ATTRIBUTION } from '../../../src/features/stats/top-dimensions.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('top tables', () => {
  let f: StatsFixture;
  let siteId: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    const at = noonUtc(dayAgo('UTC', 1));
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, at, { path: '/a', visitor: 'v1', language: 'de-DE', windowWidth: 375, timezone: 'Europe/Berlin' }),
      pv(siteId, at, { path: '/b', visitor: 'v1', sessionStart: false, windowWidth: 375 }),
      pv(siteId, at, { path: '/b', visitor: 'v1', sessionStart: false }),
      pv(siteId, at, { path: '/b', visitor: 'v2', sessionStart: false }),
      pv(siteId, at, { path: '/a', visitor: 'v3', windowWidth: 1440, timezone: 'America/New_York' }),
      pv(siteId, at, { path: '/c', visitor: 'v4', windowWidth: 991, timezone: 'Europe/Berlin' }),
    ]);
    await insertRows(f.t.deps.orm, 'requests', [
      requestRow(siteId, at, { lane: 'bot', kind: 'bot', asOrg: 'Hetzner Online GmbH' }),
      requestRow(siteId, at, { lane: 'bot', kind: 'bot', asOrg: 'Hetzner Online GmbH' }),
      requestRow(siteId, at, { lane: 'bot', kind: 'bot', status: 404, asOrg: 'Amazon.com, Inc.' }),
      requestRow(siteId, at, { asOrg: 'Deutsche Telekom AG' }),
    ]);
    // One visitor's events on one page.
    const ev = (name: string, extra: Partial<EventRow> = {}) =>
      eventRow(siteId, at, { pageviewId: 'p', visitor: 'v1', name, ...extra });
    await insertRows(f.t.deps.orm, 'events', [
      ev('signup', { label: 'hero' }),
      ev('signup', { label: 'hero' }),
      ev('click', { label: 'footer' }),
      ev('purchase', { label: 'basket', value: 19.99 }),
      ev('purchase', { label: 'basket', value: 5.006 }),
      ev('purchase', { label: 'upsell', value: -2 }),
      ev('exp-hero', { kind: 'exposure', label: 'hero' }),
    ]);
  });
  afterAll(() => f.close());

  const top = (dim: string, q: Record<string, string | number> = {}) => f.get(`/v1/sites/${siteId}/top/${dim}`, q);

  it('ranks pages by the sessions that began there, or by pageviews', async () => {
    const bySessions = await top('page').expect(200);
    expect(bySessions.body).toMatchObject({ dimension: 'page', metrics: 'sessions', count: 'sessions', lane: 'human', total: 3 });
    expect(bySessions.body.rows).toEqual([
      { value: '/a', count: 2, share: 66.7 },
      { value: '/c', count: 1, share: 33.3 },
    ]);
    expect(bySessions.body.attribution).toBeNull();
    const byViews = await top('page', { count: 'pageviews', limit: 1 }).expect(200);
    expect(byViews.body).toMatchObject({ metrics: 'pageviews', count: 'pageviews', total: 6, truncated: true });
    expect(byViews.body.rows).toEqual([{ value: '/b', count: 3, share: 50 }]);
  });

  it('ranks requests in the bot lane by default, or another lane', async () => {
    const status = await top('status').expect(200);
    expect(status.body).toMatchObject({ metrics: 'requests', count: 'requests', lane: 'bot', total: 3 });
    expect(status.body.rows).toEqual([
      { value: '200', count: 2, share: 66.7 },
      { value: '404', count: 1, share: 33.3 },
    ]);
    const human = await top('status', { lane: 'human' }).expect(200);
    expect(human.body.total).toBe(1);
  });

  it('network carries the attribution', async () => {
    const res = await top('network').expect(200);
    expect(res.body.attribution).toBe(NETWORK_ATTRIBUTION);
    expect(res.body.rows[0]).toEqual({ value: 'Hetzner Online GmbH', count: 2, share: 66.7 });
  });

  it('event counts events, not exposures', async () => {
    const res = await top('event').expect(200);
    expect(res.body).toMatchObject({ metrics: 'events', count: 'events', total: 6 });
    expect(res.body.rows).toEqual([
      { value: 'purchase', count: 3, share: 50 },
      { value: 'signup', count: 2, share: 33.3 },
      { value: 'click', count: 1, share: 16.7 },
    ]);
  });

  it('event and label rank by the summed values with count=value_sum (to the hundredth, each value rounded)', async () => {
    const res = await top('event', { count: 'value_sum' }).expect(200);
    // 19.99 + 5.01 (5.006 rounded) - 2: events without a value add nothing.
    expect(res.body).toMatchObject({ metrics: 'events', count: 'value_sum', total: 23 });
    expect(res.body.rows).toEqual([{ value: 'purchase', count: 23, share: 100 }]);
    const labels = await top('label', { count: 'value_sum' }).expect(200);
    // Only events that carry a value are ranked by it; a refund makes a share below zero.
    expect(labels.body.rows).toEqual([
      { value: 'basket', count: 25, share: 108.7 },
      { value: 'upsell', count: -2, share: -8.7 },
    ]);
    const stats = await f.get(`/v1/sites/${siteId}/stats`, {
      metrics: 'events',
      by: 'label',
      'where.event': 'purchase',
      sort: 'value_sum',
    });
    expect(stats.status).toBe(200);
    expect(stats.body.totals).toEqual({ events: 3, visitors: 1, value_sum: 23, value_average: 7.67 });
    expect(stats.body.rows).toEqual([
      { value: 'basket', counts: { events: 2, visitors: 1, value_sum: 25, value_average: 12.5 } },
      { value: 'upsell', counts: { events: 1, visitors: 1, value_sum: -2, value_average: -2 } },
    ]);
    const wrong = await top('event', { count: 'pageviews' }).expect(400);
    expect(wrong.body).toMatchObject({ field: 'count', title: expect.stringContaining('Use count value_sum for event') });
    expect((await top('page', { count: 'value_sum' }).expect(400)).body.title).toContain(
      'Use count sessions or pageviews for page',
    );
  });

  it('label ranks the labels of events (not of exposures); language ranks sessions by the browser’s language', async () => {
    const labels = await top('label').expect(200);
    expect(labels.body).toMatchObject({ metrics: 'events', count: 'events', total: 6 });
    expect(labels.body.rows).toEqual([
      { value: 'basket', count: 2, share: 33.3 },
      { value: 'hero', count: 2, share: 33.3 },
      { value: 'footer', count: 1, share: 16.7 },
      { value: 'upsell', count: 1, share: 16.7 },
    ]);
    const languages = await top('language').expect(200);
    expect(languages.body).toMatchObject({ metrics: 'sessions', total: 3 });
    expect(languages.body.rows).toEqual([
      { value: null, count: 2, share: 66.7 },
      { value: 'de-DE', count: 1, share: 33.3 },
    ]);
  });

  it('screen ranks sessions by the window width’s class; timezone by the browser’s time zone', async () => {
    const screens = await top('screen').expect(200);
    expect(screens.body).toMatchObject({ metrics: 'sessions', total: 3 });
    // 375 px: mobile, 991 px: tablet, 1440 px: desktop (laptop ends at 1439).
    expect(screens.body.rows).toEqual([
      { value: 'desktop', count: 1, share: 33.3 },
      { value: 'mobile', count: 1, share: 33.3 },
      { value: 'tablet', count: 1, share: 33.3 },
    ]);
    const pageviews = await top('screen', { count: 'pageviews' }).expect(200);
    expect(pageviews.body.rows).toEqual([
      { value: 'mobile', count: 2, share: 33.3 },
      { value: null, count: 2, share: 33.3 },
      { value: 'desktop', count: 1, share: 16.7 },
      { value: 'tablet', count: 1, share: 16.7 },
    ]);
    const zones = await top('timezone').expect(200);
    expect(zones.body.rows).toEqual([
      { value: 'Europe/Berlin', count: 2, share: 66.7 },
      { value: 'America/New_York', count: 1, share: 33.3 },
    ]);
  });

  it('refuses unknown dimensions and count for non-page dimensions', async () => {
    const a = await top('shoe').expect(400);
    expect(a.body.field).toBe('dimension');
    expect(a.headers['content-type']).toMatch(/problem\+json/);
    expect((await top('status', { count: 'pageviews' }).expect(400)).body.field).toBe('count');
    expect((await top('day').expect(400)).body.field).toBe('dimension');
  });

  it('gives a world map every country, past a hundred (limit up to 300), and refuses more', async () => {
    const world = await f.site();
    const at = noonUtc(dayAgo('UTC', 2));
    // 180 countries, one visit each but the first: ranked past the old 100 rows, the last drew no colour.
    const codes = Array.from({ length: 180 }, (_, i) => String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)));
    await insertRows(
      f.t.deps.orm,
      'pageviews',
      codes.map((country, i) => pv(world, at, { visitor: `w${i}`, country })),
    );
    await insertRows(f.t.deps.orm, 'pageviews', [pv(world, at, { visitor: 'w-again', country: 'AA' })]);
    const res = await f.get(`/v1/sites/${world}/top/country`, { days: 7, limit: STATS_LIMITS.maxTopRows }).expect(200);
    expect(res.body.rows).toHaveLength(180);
    expect(res.body.rows[0]).toMatchObject({ value: 'AA', count: 2 });
    const past = await f.get(`/v1/sites/${world}/top/country`, { days: 7, limit: STATS_LIMITS.maxTopRows + 1 }).expect(400);
    expect(past.body.field).toBe('limit');
    expect(STATS_LIMITS.maxTopRows).toBe(300);
  });
});
