// What a report says: the People headline figures of the period with the previous period, and the
// sources and pages whose sessions changed the most. The same engine answers as the stats API.
import type { Summary, TopTable } from '@us/shared';
import type { StatsDeps } from '../stats/service.ts';
import { inWorkspaceSlot } from '../stats/service.ts';
import { siteCtx } from '../stats/site-ctx.ts';
import { summaryOf } from '../stats/summary.ts';
import { topOf } from '../stats/top.ts';
import type { Period } from './periods.ts';

export interface ReportSite {
  id: string;
  name: string;
  timezone: string;
  workspaceId: string;
  settings: Record<string, unknown>;
}

/** One value of a table in both periods. */
export interface Change {
  value: string;
  now: number;
  before: number;
}

export interface ReportFigures {
  summary: Summary;
  /** Top 5 of the period, with the previous period's count. */
  sources: Change[];
  pages: Change[];
  /** The value (source or page) whose sessions rose, and fell, the most; null when none did. */
  rose: (Change & { dimension: string }) | null;
  fell: (Change & { dimension: string }) | null;
}

const TOP_ROWS = 100;
const label = (dimension: string, value: string | null) =>
  value === null || value === '' ? (dimension === 'source' ? 'Direct / none' : '(none)') : value;

function changes(dimension: string, now: TopTable, before: TopTable): Change[] {
  const previous = new Map(before.rows.map((r) => [r.value, r.count]));
  const rows = now.rows.map((r) => ({ value: label(dimension, r.value), now: r.count, before: previous.get(r.value) ?? 0 }));
  // Values seen only before the period fell to nothing: they count among the changes.
  const seen = new Set(now.rows.map((r) => r.value));
  for (const r of before.rows) if (!seen.has(r.value)) rows.push({ value: label(dimension, r.value), now: 0, before: r.count });
  return rows;
}

export async function reportFigures(deps: StatsDeps, site: ReportSite, period: Period): Promise<ReportFigures> {
  return inWorkspaceSlot(deps, site.workspaceId, async () => {
    const ctx = siteCtx(deps.statsOrm.em.fork(), { id: site.id, timezone: site.timezone, settings: site.settings });
    const summary = await summaryOf(ctx, { id: site.id, from: period.from, to: period.to });
    const previous = { from: summary.previousFrom, to: summary.previousTo };
    const table = (dimension: string, range: Period) =>
      topOf(ctx, { id: site.id, dimension, limit: TOP_ROWS, from: range.from, to: range.to });
    const [sourcesNow, sourcesBefore, pagesNow, pagesBefore] = await Promise.all([
      table('source', period),
      table('source', previous),
      table('page', period),
      table('page', previous),
    ]);
    const all = [
      ...changes('source', sourcesNow, sourcesBefore).map((c) => ({ ...c, dimension: 'source' })),
      ...changes('page', pagesNow, pagesBefore).map((c) => ({ ...c, dimension: 'page' })),
    ];
    const byDelta = [...all].sort((a, b) => b.now - b.before - (a.now - a.before));
    const first = byDelta[0];
    const last = byDelta[byDelta.length - 1];
    return {
      summary,
      sources: changes('source', sourcesNow, sourcesBefore)
        .filter((c) => c.now > 0)
        .slice(0, 5),
      pages: changes('page', pagesNow, pagesBefore)
        .filter((c) => c.now > 0)
        .slice(0, 5),
      rose: first && first.now > first.before ? first : null,
      fell: last && last.now < last.before ? last : null,
    };
  });
}
