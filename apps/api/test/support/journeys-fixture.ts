// Sessions for journeys tests: each session is one visitor code's pageviews from a session start, with
// the clicks, events and A/B exposures made on each page, stored as the collector stores them: clicks as
// events of kind 'click' named by their label, `data-journeys="off"` pages with journeys = false.
import { randomUUID } from 'node:crypto';
import { type EventRow, eventOf, type Orm, type PageviewRow, pageviewRow } from '@us/db';
import type { Lane } from '@us/shared';
import { insertRows } from './stats-fixture.ts';

export interface PageSpec {
  path: string;
  /** A page with data-journeys="off". */
  off?: boolean;
  /** Labels of elements clicked on the page, in order. */
  clicks?: string[];
  /** Names of events sent by site code on the page. */
  events?: string[];
  /** A/B exposures of the page: [experiment, variant]. */
  exposures?: [string, string][];
}

export interface SessionSpec {
  pages: (string | PageSpec)[];
  /** Local (UTC) day of the session. */
  day: string;
  lane?: Lane;
  /** Reuse a visitor code to give one visitor several sessions in a day. */
  visitor?: string;
  /** Seconds after the day's noon when the session starts. */
  offset?: number;
}

export interface JourneyRows {
  pageviews: PageviewRow[];
  events: EventRow[];
}

let seq = 0;

export function emptyRows(): JourneyRows {
  return { pageviews: [], events: [] };
}

/** Adds `times` sessions of the same shape (each with its own visitor code unless one is given). */
export function addSessions(rows: JourneyRows, siteId: string, spec: SessionSpec, times = 1): JourneyRows {
  for (let n = 0; n < times; n++) {
    seq += 1;
    const visitor = spec.visitor ?? `jv-${seq}`;
    const start = Date.parse(`${spec.day}T12:00:00Z`) + (spec.offset ?? 0) * 1000;
    spec.pages.forEach((p, i) => {
      const page: PageSpec = typeof p === 'string' ? { path: p } : p;
      const pageview = pageviewRow(siteId, new Date(start + i * 20_000), {
        id: randomUUID(),
        pageviewId: `jp-${randomUUID()}`,
        visitor,
        sessionStart: i === 0,
        lane: spec.lane ?? 'human',
        path: page.path,
        country: 'DE',
        journeys: !page.off,
      });
      rows.pageviews.push(pageview);
      // Events without a country (only the pageview has one): a bot window naming DE moves pageviews only.
      const event = (k: number, extra: Partial<EventRow>): EventRow =>
        eventOf(pageview, {
          id: randomUUID(),
          at: new Date(pageview.at.getTime() + 1000 + k * 1000),
          name: 'x',
          country: null,
          ...extra,
        });
      let k = 0;
      for (const label of page.clicks ?? []) rows.events.push(event(k++, { name: label, kind: 'click' }));
      for (const name of page.events ?? []) rows.events.push(event(k++, { name }));
      for (const [experiment, variant] of page.exposures ?? []) {
        rows.events.push(event(k++, { name: experiment, kind: 'exposure', experiment, variant }));
      }
    });
  }
  return rows;
}

export async function insertJourneys(orm: Orm, rows: JourneyRows) {
  await insertRows(orm, 'pageviews', rows.pageviews);
  if (rows.events.length) await insertRows(orm, 'events', rows.events);
}
