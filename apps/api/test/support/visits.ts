// Visits built as rows with known answers, for the results tests: each visit is one visitor code's
// pageviews a minute apart, the first beginning the session, with events and A/B exposures on its pages.
import { type EventRow, eventOf, insertRows, type PageviewRow, pageviewRow } from '@us/db';
import type { Lane } from '@us/shared';
import type { TestServer } from './server.ts';

export interface Page {
  path: string;
  /** Event names sent from this page (kind event). */
  events?: string[];
  /** Exposures of this pageview: experiment key → variant. */
  exposures?: Record<string, string>;
}

export interface VisitOptions {
  lane?: Lane;
  country?: string;
  /** The network the pageviews came from (events have no network columns). */
  asn?: number;
  /** false: the first page does not begin a session (a visit that crossed midnight). */
  starts?: boolean;
}

export class Visits {
  readonly pageviews: PageviewRow[] = [];
  readonly events: EventRow[] = [];
  constructor(readonly siteId: string) {}

  /** One visit from `at`; pages are paths or pages with events and exposures. */
  visit(at: Date, visitor: string, pages: (string | Page)[], opts: VisitOptions = {}): this {
    pages.forEach((page, i) => {
      const p = typeof page === 'string' ? { path: page } : page;
      const pageview = pageviewRow(this.siteId, new Date(at.getTime() + i * 60_000), {
        visitor,
        sessionStart: i === 0 && opts.starts !== false,
        lane: opts.lane ?? 'human',
        path: p.path,
        country: opts.country ?? 'DE',
        ...(opts.asn !== undefined ? { asn: opts.asn } : {}),
      });
      this.pageviews.push(pageview);
      for (const [experiment, variant] of Object.entries(p.exposures ?? {})) {
        this.events.push(eventOf(pageview, { name: experiment, kind: 'exposure', experiment, variant }));
      }
      (p.events ?? []).forEach((name, k) => {
        this.events.push(eventOf(pageview, { at: new Date(pageview.at.getTime() + (k + 1) * 1000), name }));
      });
    });
    return this;
  }

  async save(t: TestServer): Promise<void> {
    await insertRows(t.deps.orm, 'pageviews', this.pageviews);
    if (this.events.length) await insertRows(t.deps.orm, 'events', this.events);
  }
}
