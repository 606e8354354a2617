// Sessions for journeys tests: each session is one visitor code's pageviews from a session start, with
// the clicks, events and A/B exposures made on each page. Rows go in through insertRows (partitions made
// on demand); clicks are stored as events of kind 'click' (set after the insert, since the collector's
// kinds are a closed list on this branch) and `data-journeys="off"` pages get journeys = false.
import { randomUUID } from 'node:crypto';
import type { EventRow, Orm, PageviewRow } from '@us/db';
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
  clickIds: string[];
  offIds: string[];
}

let seq = 0;

export function emptyRows(): JourneyRows {
  return { pageviews: [], events: [], clickIds: [], offIds: [] };
}

/** Adds `times` sessions of the same shape (each with its own visitor code unless one is given). */
export function addSessions(rows: JourneyRows, siteId: string, spec: SessionSpec, times = 1): JourneyRows {
  for (let n = 0; n < times; n++) {
    seq += 1;
    const visitor = spec.visitor ?? `jv-${seq}`;
    const start = Date.parse(`${spec.day}T12:00:00Z`) + (spec.offset ?? 0) * 1000;
    spec.pages.forEach((p, i) => {
      const page: PageSpec = typeof p === 'string' ? { path: p } : p;
      const at = new Date(start + i * 20_000);
      const pageviewId = `jp-${randomUUID()}`;
      const id = randomUUID();
      rows.pageviews.push({
        id,
        siteId,
        at,
        pageviewId,
        visitor,
        sessionStart: i === 0,
        lane: spec.lane ?? 'human',
        path: page.path,
        device: 'desktop',
        country: 'DE',
      });
      if (page.off) rows.offIds.push(id);
      const event = (k: number, extra: Partial<EventRow>): EventRow => ({
        id: randomUUID(),
        siteId,
        at: new Date(at.getTime() + 1000 + k * 1000),
        pageviewId,
        visitor,
        lane: spec.lane ?? 'human',
        path: page.path,
        name: 'x',
        kind: 'event',
        device: 'desktop',
        ...extra,
      });
      let k = 0;
      for (const label of page.clicks ?? []) {
        const e = event(k++, { name: label });
        rows.clickIds.push(e.id as string);
        rows.events.push(e);
      }
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
  const conn = orm.em.getConnection();
  if (rows.clickIds.length)
    await conn.execute(`update events set kind = 'click' where id = any(string_to_array(?, ',')::uuid[])`, [
      rows.clickIds.join(','),
    ]);
  if (rows.offIds.length)
    await conn.execute("update pageviews set journeys = false where id = any(string_to_array(?, ',')::uuid[])", [
      rows.offIds.join(','),
    ]);
}
