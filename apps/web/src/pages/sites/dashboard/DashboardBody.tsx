import { useEffect } from 'react';
import { Notice } from '../../../components/Notice.tsx';
import { sendToSignInOn401 } from '../../../session.ts';
import { ChartCard } from './ChartCard.tsx';
import { type Choices, choicesKey, laneOf, rangeFields } from './choices.ts';
import { loadSeries, loadSummary } from './data.ts';
import { EmptyState } from './EmptyState.tsx';
import { formatPeriod } from './format.ts';
import { LANE_VIEWS } from './lanes.ts';
import { MeasureCards } from './MeasureCards.tsx';
import { type MeasureItem, seriesMeasures, summaryMeasures } from './measures.ts';
import { TopTables } from './TopTables.tsx';
import type { Catalogue } from './types.ts';
import { useLoad } from './useLoad.ts';

/**
 * The figures for the current choices: headline cards, the daily chart and the top tables. The
 * series comes in one batch call; People's cards come from the summary, other lanes' from the series.
 */
export function DashboardBody({
  siteId,
  choices,
  catalogue,
}: {
  siteId: string;
  choices: Choices;
  catalogue: Catalogue | undefined;
}) {
  const view = LANE_VIEWS[choices.lane];
  const people = choices.lane === 'people';
  const series = useLoad(choicesKey(choices), () => loadSeries(siteId, choices));
  const summary = useLoad(people ? JSON.stringify(rangeFields(choices)) : 'none', () =>
    people ? loadSummary(siteId, choices) : Promise.resolve(null),
  );
  // While another lane loads, the last answer belongs to the old lane: not shown.
  const answers = series.data;
  const current =
    answers && answers.series.lane === laneOf(choices.lane) && answers.series.metrics === view.metrics
      ? answers.series
      : undefined;
  const problem = series.problem ?? (people ? summary.problem : null);
  // The session ended while the page was open: on to sign-in, saying why.
  useEffect(() => {
    if (problem) sendToSignInOn401(problem);
  }, [problem]);

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

  return (
    <div className="dash-body" aria-busy={series.loading || summary.loading}>
      {current && (
        <p className="dash-period muted">
          {formatPeriod(current.from, current.to)} · days in {current.timezone}
        </p>
      )}
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!problem && !current && <p className="loading">Loading…</p>}
      {items && <MeasureCards items={items} compare={choices.compare} previous={previous} reason={reason} />}
      {current && empty && <EmptyState siteId={siteId} crawlers={choices.lane === 'crawlers'} />}
      {current && !empty && (
        <>
          <ChartCard view={view} series={current} />
          <TopTables siteId={siteId} choices={choices} view={view} catalogue={catalogue} />
        </>
      )}
    </div>
  );
}
