import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Notice } from '../../../components/Notice.tsx';
import { formatPeriod } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC, useTRPCClient } from '../../../trpc.ts';
import { ChartCard } from './ChartCard.tsx';
import { type Choices, laneOf } from './choices.ts';
import { seriesOptions, summaryOptions } from './data.ts';
import { EmptyState } from './EmptyState.tsx';
import { ImportedNote } from './ImportedNote.tsx';
import { LANE_VIEWS } from './lanes.ts';
import { MeasureCards } from './MeasureCards.tsx';
import { type MeasureItem, seriesMeasures, summaryMeasures } from './measures.ts';
import { AnnotationsCard } from './notes/AnnotationsCard.tsx';
import { ChangesCard } from './notes/ChangesCard.tsx';
import { useAnnotations } from './notes/data.ts';
import { PropertiesCard } from './PropertiesCard.tsx';
import { TopTables } from './TopTables.tsx';
import type { Catalogue } from './types.ts';

/**
 * The figures for the current choices: headline cards, the daily chart and the top tables. The
 * series comes in one batch call; People's cards come from the summary, other lanes' from the series.
 */
export function DashboardBody({
  siteId,
  choices,
  catalogue,
  onFilter,
  installed,
  annotate = false,
  footer,
}: {
  siteId: string;
  choices: Choices;
  catalogue: Catalogue | undefined;
  onFilter: (dimension: string, value: string | null) => void;
  /** Whether any page report has reached the site yet (if not, an empty preset range shows the install steps). */
  installed: boolean;
  /**
   * The site's own dashboard: the period's annotations marked on the chart, with their list and form under it,
   * and (People) what changed since the period before.
   */
  annotate?: boolean;
  /** Shown under the figures once they are there (so it never jumps down as they arrive). */
  footer?: ReactNode;
}) {
  const view = LANE_VIEWS[choices.lane];
  const people = choices.lane === 'people';
  const trpc = useTRPC();
  const series = useQuery(seriesOptions(trpc, useTRPCClient(), siteId, choices));
  const summary = useQuery(summaryOptions(trpc, siteId, choices));
  // While another lane loads, the last answer belongs to the old lane: not shown.
  const answers = series.data;
  const current =
    answers && answers.series.lane === laneOf(choices.lane) && answers.series.metrics === view.metrics
      ? answers.series
      : undefined;
  const error = series.error ?? (people ? summary.error : null);
  const problem = error ? toProblem(error) : null;

  let items: MeasureItem[] | null = null;
  let reason: string | null = null;
  let previous: { from: string; to: string } | null = null;
  if (people && summary.data) {
    items = summaryMeasures(summary.data);
    reason = summary.data.comparison.available ? null : summary.data.comparison.reason;
    previous = { from: summary.data.previousFrom, to: summary.data.previousTo };
  } else if (!people && current) {
    items = seriesMeasures(view, current, answers?.bots ?? null);
    reason = current.comparison && !current.comparison.available ? current.comparison.reason : null;
    previous = current.previous ?? null;
  }
  const empty = current ? view.lines.every((l) => (current.totals[l.count] ?? 0) === 0) : false;
  const annotations = useAnnotations(siteId, annotate && current ? { from: current.from, to: current.to } : null);
  const notes = annotations.data?.annotations ?? [];

  return (
    <div className="dash-body" aria-busy={series.isFetching || summary.isFetching}>
      <p className="dash-period muted">
        {current ? `${formatPeriod(current.from, current.to)} · days in ${current.timezone}` : '\u00a0'}
      </p>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {/* The room the figures will take, whichever answer comes first, so nothing moves as they arrive. */}
      {items && <MeasureCards items={items} compare={choices.compare} previous={previous} reason={reason} />}
      {!items && !problem && (
        <div className="dash-placeholder-measures loading" role="status">
          <span className="site-visually-hidden">Loading…</span>
        </div>
      )}
      {!current && !problem && <div className="dash-placeholder-chart loading" aria-hidden="true" />}
      {current && empty && (
        <EmptyState
          siteId={siteId}
          crawlers={choices.lane === 'crawlers'}
          filtered={Object.keys(choices.filters).length > 0}
          installed={installed || choices.range === 'custom'}
        />
      )}
      {current && !empty && (
        <>
          <ChartCard view={view} series={current} marks={notes} />
          <ImportedNote imported={current.imported} />
          {annotate && <AnnotationsCard siteId={siteId} annotations={notes} lastDay={current.to} />}
          {annotate && people && <ChangesCard siteId={siteId} choices={choices} />}
          <TopTables siteId={siteId} choices={choices} view={view} catalogue={catalogue} onFilter={onFilter} />
          {view.metrics === 'pageviews' && <PropertiesCard siteId={siteId} choices={choices} onFilter={onFilter} />}
        </>
      )}
      {current && footer}
    </div>
  );
}
