// Row factories for the raw analytics tables: the one family the API's tests, the bench (apps/api/bench)
// and this package's tests build rows with. They sit here, beside the row types, because all of those may
// import @us/db while none may reach into another's folder (apps/api/src never imports test code, and
// packages/db cannot import apps/api); they need only node:crypto, so nothing test-only comes along.
//
// Each factory takes the site, the time and overrides (`Partial<Row>`). Defaults fill only the columns a
// row must have: a human on a desktop on `/`, a pageview that begins its session, a GET answered 200.
// Optional columns (country, referrer, bot name…) stay empty unless given. The only randomness is in
// identifiers: each row gets a new pageview id and visitor code. No row `id`: as for collected rows,
// the write buffer or insertRows gives one; pass `id` for a batch inserted twice on purpose.
import { randomUUID } from 'node:crypto';
import type { EventRow, PageLeaveRow, PageviewRow, RequestRow } from './rows.ts';

/** A new pageview id, as the page script makes one per page load. */
export const newPageviewId = () => `pv-${randomUUID()}`;
/** A new visitor code (the daily cookie-free hash in real traffic). */
export const newVisitor = () => `v-${randomUUID()}`;

/** A pageview of a new visitor, beginning a session: human, desktop, path `/`. */
export function pageviewRow(siteId: string, at: Date, overrides: Partial<PageviewRow> = {}): PageviewRow {
  return {
    siteId,
    at,
    pageviewId: newPageviewId(),
    visitor: newVisitor(),
    sessionStart: true,
    lane: 'human',
    path: '/',
    device: 'desktop',
    ...overrides,
  };
}

/** `n` pageviews at `at`; `each(i)` gives the overrides of the i-th. */
export function pageviewRows(
  siteId: string,
  at: Date,
  n: number,
  each: (i: number) => Partial<PageviewRow> = () => ({}),
): PageviewRow[] {
  return Array.from({ length: n }, (_, i) => pageviewRow(siteId, at, each(i)));
}

/** A site event (`signup`) of a new visitor on a page of its own: human, desktop, path `/`. */
export function eventRow(siteId: string, at: Date, overrides: Partial<EventRow> = {}): EventRow {
  return {
    siteId,
    at,
    pageviewId: newPageviewId(),
    visitor: newVisitor(),
    lane: 'human',
    path: '/',
    name: 'signup',
    kind: 'event',
    device: 'desktop',
    ...overrides,
  };
}

/** An event sent from `pageview`'s page: its site, time, pageview id, visitor, lane, path, device and country. */
export function eventOf(pageview: PageviewRow, overrides: Partial<EventRow> = {}): EventRow {
  const { siteId, at, pageviewId, visitor, lane, path, device, country } = pageview;
  return eventRow(siteId, at, { pageviewId, visitor, lane, path, device, country, ...overrides });
}

/** A page leave report: half the page scrolled, 10 s visible, interacted with. */
export function pageLeaveRow(siteId: string, at: Date, overrides: Partial<PageLeaveRow> = {}): PageLeaveRow {
  return {
    siteId,
    at,
    pageviewId: newPageviewId(),
    lane: 'human',
    scrollDepth: 50,
    timeOnPageMs: 10_000,
    interacted: true,
    ...overrides,
  };
}

/** The leave report of `pageview`, 30 s after it: its site, pageview id and lane. */
export function leaveOf(pageview: PageviewRow, overrides: Partial<PageLeaveRow> = {}): PageLeaveRow {
  const { siteId, at, pageviewId, lane } = pageview;
  return pageLeaveRow(siteId, new Date(at.getTime() + 30_000), { pageviewId, lane, ...overrides });
}

/** A browser's GET of `/` answered 200 in 5 ms: human lane, not a bot. */
export function requestRow(siteId: string, at: Date, overrides: Partial<RequestRow> = {}): RequestRow {
  return {
    siteId,
    at,
    method: 'GET',
    path: '/',
    status: 200,
    durationMs: 5,
    lane: 'human',
    kind: 'browser',
    verified: false,
    ...overrides,
  };
}
