// The rollup rows tallied in the process from COPY streams (analytics/rollup/rollup-streams.ts) against the same
// rows computed by the SQL selects the job used before (support/rollup-sql.ts), on generated traffic
// for a Berlin site (its local day spans two UTC days) plus rows that exercise the odd cases: a visitor
// code on both UTC days, duplicate pageviews at the same instant, pageviews before a visit's start,
// values with escapes, nulls and non-ASCII text, events of every kind with values whose sum passes 2^53.
import { randomUUID } from 'node:crypto';
import {
  createOrm,
  type EventRow,
  eventRow,
  insertRows,
  type Orm,
  type PageviewRow,
  pageLeaveRow,
  pgPoolOf,
  requestRow,
} from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { pooledCopyOut } from '../../../src/analytics/rollup/copy-connections.ts';
import type { SiteDay } from '../../../src/analytics/rollup/pending-days.ts';
import { rollupSiteDay, siteDaySource } from '../../../src/analytics/rollup/rollup.ts';
import type { RollupSource } from '../../../src/analytics/rollup/rollup-format.ts';
import { tallySiteDay } from '../../../src/analytics/rollup/rollup-streams.ts';
import { liveRollupThreads, stopRollupThreads } from '../../../src/analytics/rollup/rollup-thread.ts';
import { generatedSiteDay, normalRows, pageview, storedRollupRows } from '../../support/rollup-day.ts';
import { sqlRollupRows } from '../../support/rollup-sql.ts';
import { dayAgo } from '../../support/stats-fixture.ts';

const TZ = 'Europe/Berlin';
let orm: Orm;
let sd: SiteDay;
let src: RollupSource;

const normal = normalRows;

const at = (ms: number) => new Date(Date.parse(src.whereParams[3] as string) + ms);
const MIN = 60_000;
const HOUR = 60 * MIN;

const pv = (visitor: string, ms: number, extra: Partial<PageviewRow> = {}) => pageview(sd.siteId, visitor, at(ms), extra);

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 6 });
  sd = await generatedSiteDay(orm, 'Tallies', TZ, 5000);
  src = await siteDaySource(orm, sd);

  const dup = randomUUID();
  await insertRows(orm, 'pageviews', [
    // One code on both UTC days of the local day: one visitor, a visit on each UTC day.
    pv('e-two-days', 30 * MIN, { sessionStart: true, path: '/a', country: 'DE' }),
    pv('e-two-days', 11 * HOUR, { sessionStart: true, path: '/b', country: 'DE' }),
    // The same pageview twice at the same instant (peers in the visit order), then one more page.
    pv('e-peers', 2 * HOUR, { sessionStart: true, path: '/p', pageviewId: dup, referrerHost: 'www.google.com' }),
    pv('e-peers', 2 * HOUR, { sessionStart: true, path: '/p', pageviewId: dup, referrerHost: 'www.google.com' }),
    pv('e-peers', 2 * HOUR + MIN, { path: '/q' }),
    // A pageview before the visitor's first visit start, then a visit of two pages.
    pv('e-before', 3 * HOUR, { path: '/x' }),
    pv('e-before', 3 * HOUR + MIN, { sessionStart: true, path: '/y', utmSource: 'news', utmCampaign: 'fall' }),
    pv('e-before', 3 * HOUR + 2 * MIN, { path: '/z' }),
    // Values that change within a visit and come back, the lane too, with leave reports on some rows: each value
    // counts its rows and the visitor once.
    pv('e-switch', 2 * HOUR, { sessionStart: true, path: '/s1', country: 'XA', pageviewId: 'e-switch-1' }),
    pv('e-switch', 2 * HOUR + MIN, { path: '/s1', country: 'XB', pageviewId: 'e-switch-2' }),
    pv('e-switch', 2 * HOUR + 2 * MIN, { path: '/s2', country: 'XA', pageviewId: 'e-switch-3' }),
    pv('e-switch', 2 * HOUR + 3 * MIN, { path: '/s2', country: 'XA', lane: 'internal' }),
    pv('e-switch', 2 * HOUR + 4 * MIN, { path: '/s3', country: 'XA', pageviewId: 'e-switch-5' }),
    // A pageview whose leave reports are stored one and two UTC days after the day's last (read apart: late leaves).
    pv('e-late-leave', 20 * HOUR, { sessionStart: true, path: '/late-leave', pageviewId: 'e-late-leave-1' }),
    // Text the COPY stream escapes or that looks like its NULL, non-ASCII text, nulls.
    pv('e-odd', 4 * HOUR, { sessionStart: true, path: '/a\\b', referrerHost: null, country: null, language: 'de-DE' }),
    pv('e-odd', 4 * HOUR + MIN, { path: '\\N', timezone: 'Europe/Berlin', windowWidth: 1200 }),
    pv('e-odd', 4 * HOUR + 2 * MIN, { path: '/quote', pageType: "it's" }),
    pv('e-odd', 4 * HOUR + 3 * MIN, { path: '/ü/😀', asOrg: 'Netz "GmbH"' }),
    pv('e-bot', 5 * HOUR, { sessionStart: true, lane: 'bot', botName: 'Googlebot', botCategory: 'search' }),
    pv('e-internal', 6 * HOUR, { sessionStart: true, lane: 'internal', device: 'mobile' }),
    // "From search" (decided in the process): rows before channels by the referrer's host, a search engine's
    // or its mail host, an empty one; rows with a channel by it alone, whatever the host.
    pv('e-search-1', 6 * HOUR, { sessionStart: true, channel: null, referrerHost: 'www.bing.test' }),
    pv('e-search-2', 6 * HOUR, { sessionStart: true, channel: null, referrerHost: 'search.brave.com' }),
    pv('e-search-3', 6 * HOUR, { sessionStart: true, channel: null, referrerHost: 'mail.google.test' }),
    pv('e-search-4', 6 * HOUR, { sessionStart: true, channel: null, referrerHost: 'google.example' }),
    pv('e-search-5', 6 * HOUR, { sessionStart: true, channel: null, referrerHost: '' }),
    pv('e-search-6', 6 * HOUR, { sessionStart: true, channel: 'Paid Search', referrerHost: 'news.test' }),
    pv('e-search-7', 6 * HOUR, { sessionStart: true, channel: 'Referral', referrerHost: 'www.google.com' }),
    pv('e-search-8', 6 * HOUR, { sessionStart: false, channel: null, referrerHost: 'www.google.test' }),
  ]);
  // Control characters are refused at the door and by insertRows; a row stored before that still rolls up.
  await orm.em.getConnection().execute(
    `insert into pageviews (site_id, day, id, at, pageview_id, visitor, session_start, lane, path, device)
     values (?::uuid, (?::timestamptz at time zone 'UTC')::date, gen_random_uuid(), ?::timestamptz, 'ctl', 'e-odd', false, 'human', E'/t\\tab\\nnew\\rline', 'desktop')`,
    [sd.siteId, at(4 * HOUR + 4 * MIN).toISOString(), at(4 * HOUR + 4 * MIN).toISOString()],
    'run',
  );
  await insertRows(orm, 'page_leaves', [
    pageLeaveRow(sd.siteId, at(2 * HOUR + 30_000), { pageviewId: dup, scrollDepth: 80, timeOnPageMs: 5000 }),
    pageLeaveRow(sd.siteId, at(2 * HOUR + 40_000), { pageviewId: dup, scrollDepth: 90, timeOnPageMs: 700 }),
    pageLeaveRow(sd.siteId, at(27 * HOUR), { pageviewId: 'e-late-leave-1', scrollDepth: 55, timeOnPageMs: 3000 }),
    pageLeaveRow(sd.siteId, at(49 * HOUR), { pageviewId: 'e-late-leave-1', scrollDepth: 75, timeOnPageMs: 1000 }),
    pageLeaveRow(sd.siteId, at(27 * HOUR), { pageviewId: 'e-not-of-the-day', scrollDepth: 10, timeOnPageMs: 99 }),
    pageLeaveRow(sd.siteId, at(2 * HOUR + 50_000), { pageviewId: 'e-switch-1', scrollDepth: 40, timeOnPageMs: 1000 }),
    pageLeaveRow(sd.siteId, at(2 * HOUR + 110_000), { pageviewId: 'e-switch-2', scrollDepth: 60, timeOnPageMs: 2000 }),
    pageLeaveRow(sd.siteId, at(2 * HOUR + 290_000), { pageviewId: 'e-switch-5', scrollDepth: 100, timeOnPageMs: 4000 }),
  ]);
  const ev = (name: string, value: number | null, kind: EventRow['kind'], extra: Partial<EventRow> = {}) =>
    eventRow(sd.siteId, at(7 * HOUR), { visitor: 'e-events', path: '/shop', name, value, kind, ...extra });
  await insertRows(orm, 'events', [
    ev('refund', -5.5, 'event'),
    ev('refund', 2.25, 'event', { visitor: 'e-events-2' }),
    ev('signup', null, 'event', { label: 'footer' }),
    ev('Buy now', null, 'click'),
    ev('pricing', null, 'exposure', { experiment: 'pricing', variant: 'b' }),
  ]);
  // Values of a billion each, 91,000 of them: the day's sum in hundredths passes 2^53.
  await orm.em.getConnection().execute(
    `insert into events (site_id, day, id, at, pageview_id, visitor, lane, path, name, value, kind, device)
     select ?::uuid, (?::timestamptz at time zone 'UTC')::date, gen_random_uuid(), ?::timestamptz, md5(i::text), 'big-' || (i % 7), 'human', '/big', 'whale', 1e9, 'event', 'desktop'
       from generate_series(1, 91000) i`,
    [sd.siteId, at(8 * HOUR).toISOString(), at(8 * HOUR).toISOString()],
    'run',
  );
  await insertRows(orm, 'requests', [
    requestRow(sd.siteId, at(9 * HOUR), { path: '/tally-api', durationMs: 3, lane: 'bot', kind: 'bot', decision: null }),
    requestRow(sd.siteId, at(9 * HOUR), {
      method: 'POST',
      path: '/tally-api',
      status: 403,
      durationMs: 1,
      lane: 'bot',
      kind: 'bot',
      decision: 'deny',
    }),
  ]);
}, 120_000);

afterAll(async () => {
  await orm?.close();
});

describe('rollup tallies', () => {
  it('give the SQL rollup rows of a generated day with odd rows, whatever the number of parts', async () => {
    const expected = normal(await sqlRollupRows(orm, src));
    expect(expected.length).toBeGreaterThan(1000);
    const copy = pooledCopyOut(await pgPoolOf(orm));
    for (const parts of [1, 2, 3]) {
      expect(normal(await tallySiteDay(src, copy, Math.min(parts, 2), parts)), `${parts} parts`).toEqual(expected);
    }
  });

  it('count what the odd rows say', async () => {
    const rows = await tallySiteDay(src, pooledCopyOut(await pgPoolOf(orm)), 2);
    const row = (set: string, dimension: string, value: string, lane = 'human') =>
      rows.find((r) => r.metric_set === set && r.dimension === dimension && r.value === value && r.lane === lane);
    expect(row('sessions', 'exit_page', '/q')).toMatchObject({ count: '2', visitors: 1 }); // peers: both starts end at /q
    expect(row('sessions', 'exit_page', '/z')).toMatchObject({ count: '1', visitors: 1 });
    // Leave reports stored after the day's last UTC day count for its pageview.
    expect(row('leave_scroll', 'page', '/late-leave')).toMatchObject({ count: '75', visitors: 1 });
    expect(row('leave_ms', 'page', '/late-leave')).toMatchObject({ count: '4000', visitors: 1 });
    // The visitor whose country went XA, XB, XA (and their lane human, internal, human): XA counts three human rows,
    // XB one, each the visitor once, with the leave reports of those rows.
    expect(row('pageviews', 'country', 'XA')).toMatchObject({ count: '3', visitors: 1 });
    expect(row('pageviews', 'country', 'XA', 'internal')).toMatchObject({ count: '1', visitors: 1 });
    expect(row('pageviews', 'country', 'XB')).toMatchObject({ count: '1', visitors: 1 });
    expect(row('single_page', 'country', 'XB')).toMatchObject({ count: '1', visitors: 1 });
    expect(row('single_page', 'country', 'XA')).toBeUndefined();
    expect(row('leave_scroll', 'country', 'XA')).toMatchObject({ count: '140', visitors: 2 });
    expect(row('leave_ms', 'country', 'XB')).toMatchObject({ count: '2000', visitors: 1 });
    expect(row('pageviews', 'page', '/t\tab\nnew\rline')).toMatchObject({ count: '1', visitors: 1 });
    expect(row('pageviews', 'page', '\\N')).toMatchObject({ count: '1' });
    expect(row('pageviews', 'page', '/ü/😀')).toMatchObject({ count: '1' });
    expect(row('leave_ms', 'page', '/p')).toMatchObject({ count: '11400', visitors: 2 }); // one pageview id, two rows
    expect(row('event_value', 'event', 'whale')).toMatchObject({ count: '9100000000000000', visitors: 91000 });
    expect(row('event_value', 'event', 'refund')).toMatchObject({ count: '-325', visitors: 2 });
    expect(row('events', 'event', 'Buy now')).toBeUndefined(); // element clicks count in no figure
    expect(row('requests', 'path', '/tally-api', 'bot')).toMatchObject({ count: '2', visitors: 0 });
    expect(row('search_sessions', 'referrer', 'www.bing.test')).toMatchObject({ count: '1', visitors: 1 });
    expect(row('search_sessions', 'referrer', 'news.test')).toMatchObject({ count: '1', visitors: 1 }); // its channel
    expect(row('search_sessions', 'referrer', 'mail.google.test')).toBeUndefined(); // Gmail
    expect(row('search_sessions', 'referrer', 'www.google.test')).toBeUndefined(); // no visit began there
  });

  it('give the SQL rows of a day so far (today up to an hour boundary)', async () => {
    const today = { ...sd, day: dayAgo(TZ, 0) };
    const until = new Date(Math.floor(Date.now() / HOUR) * HOUR).toISOString();
    const part = await siteDaySource(orm, today, until);
    expect(normal(await tallySiteDay(part, pooledCopyOut(await pgPoolOf(orm)), 2))).toEqual(
      normal(await sqlRollupRows(orm, part)),
    );
  });

  it('fail as a whole when a stream fails, and leave the pool as it was', async () => {
    const pool = await pgPoolOf(orm);
    const inUse = () => {
      const p = pool as unknown as { totalCount: number; idleCount: number };
      return p.totalCount - p.idleCount;
    };
    const broken = { ...src, tables: { ...src.tables, requests: 'no_such_table' } };
    await expect(tallySiteDay(broken, pooledCopyOut(pool), 2)).rejects.toThrow(/no_such_table/);
    // The leave reports failing while the pageview streams wait for them (their statements already sent).
    const noLeaves = { ...src, tables: { ...src.tables, page_leaves: 'no_such_leaves' } };
    await expect(tallySiteDay(noLeaves, pooledCopyOut(pool), 3)).rejects.toThrow(/no_such_leaves/);
    expect(inUse()).toBe(0);
    // A stream dropped half-way (its reader failed) discards its connection rather than returning it mid-COPY.
    const stream = await pooledCopyOut(pool)(`copy (select g from generate_series(1, 1000000) g) to stdout`);
    for await (const _ of stream) break;
    const again = normal(await tallySiteDay(src, pooledCopyOut(pool), 2));
    expect(again).toEqual(normal(await sqlRollupRows(orm, src)));
  });

  it('are counted and written in the rollup thread; a thread stopped mid-way writes nothing, the next one rolls the day up', async () => {
    const stored = () => storedRollupRows(orm, sd);
    await stopRollupThreads(); // none left from earlier tests: the one counted below is this rollup's
    const running = rollupSiteDay(orm, sd);
    // Stopped once its task is in the thread (a fixed wait could end before the job's own queries did).
    await vi.waitFor(() => expect(liveRollupThreads()).toBe(1), { timeout: 10_000, interval: 5 });
    // Expected before the stop: the stop rejects it at once, and a rejection nothing awaits yet fails the run.
    const stopped = expect(running).rejects.toThrow(/rollup thread/);
    await stopRollupThreads();
    await stopped;
    expect(await stored()).toEqual([]);
    expect(await rollupSiteDay(orm, sd)).not.toBeNull();
    expect(await stored()).toEqual(normal(await sqlRollupRows(orm, src)));
  });
});
