// What a report says: the People headline figures of the period with the previous period alongside,
// and the top sources and pages by visitors with their change. Asked of the stats engine with the very
// questions the stats API answers (`stats.summary`, and `stats.get` of the pageviews and sessions sets),
// so the e-mail's numbers are the API's for the same range.
import type { StatsResult, StatsSpec, Summary, SummaryMeasure } from '@us/shared';
import { siteCtx } from '../../analytics/site-ctx.ts';
import type { StatsDeps } from '../../analytics/site-slot.ts';
import { inWorkspaceSlot } from '../../analytics/site-slot.ts';
import { answer, measure, normalise, summaryOf } from '../stats/index.ts';
import { biggestMoves, type Change, changesOf, type Move, topOf } from './changes.ts';
import type { Period } from './periods.ts';

export interface ReportSite {
  id: string;
  name: string;
  timezone: string;
  workspaceId: string;
  settings: Record<string, unknown>;
}

export interface ReportFigures {
  /** People visitors of the period (the pageviews set's `visitors`), with the previous period. */
  visitors: SummaryMeasure;
  /** The summary's measures (sessions, pageviews, bounce rate, …) and the previous period's days. */
  summary: Summary;
  /** The top 5 of the period by visitors, with the previous period's. */
  sources: Change[];
  pages: Change[];
  /** The source or page whose visitors rose, and fell, the most; null when none did. */
  rose: Move | null;
  fell: Move | null;
}

export const TOP_SHOWN = 5;
/** Rows ranked per table and period: changes are looked for among these. */
const RANKED_ROWS = 100;

/** The period's figures of a site, inside one of its workspace's stats slots (429 when all are taken). */
export async function reportFigures(deps: StatsDeps, site: ReportSite, period: Period): Promise<ReportFigures> {
  return inWorkspaceSlot(deps, site.workspaceId, async () => {
    const ctx = siteCtx(deps.statsOrm.em.fork(), { id: site.id, timezone: site.timezone, settings: site.settings });
    const ask = (spec: Omit<StatsSpec, 'from' | 'to' | 'lane' | 'compare'>): Promise<StatsResult> =>
      answer(ctx, normalise({ ...spec, lane: 'human', compare: true, from: period.from, to: period.to }, ctx.today));
    const ranked = { sort: 'visitors', limit: RANKED_ROWS } as const;
    const [summary, totals, sourcesAnswer, pagesAnswer] = await Promise.all([
      summaryOf(ctx, { id: site.id, from: period.from, to: period.to }),
      ask({ metrics: 'pageviews' }),
      ask({ metrics: 'sessions', by: 'source', ...ranked }),
      ask({ metrics: 'pageviews', by: 'page', ...ranked }),
    ]);
    const sources = changesOf('source', sourcesAnswer);
    const pages = changesOf('page', pagesAnswer);
    const previousVisitors = totals.previous ? (totals.previous.totals.visitors ?? 0) : null;
    return {
      // Visitors are read like sessions: up is good (the summary's rule for the change and its tone).
      visitors: measure('sessions', totals.totals.visitors ?? 0, previousVisitors),
      summary,
      sources: topOf(sources, TOP_SHOWN),
      pages: topOf(pages, TOP_SHOWN),
      ...biggestMoves([
        { dimension: 'source', changes: sources },
        { dimension: 'page', changes: pages },
      ]),
    };
  });
}
