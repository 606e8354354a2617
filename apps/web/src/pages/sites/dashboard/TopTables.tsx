import type { Choices } from './choices.ts';
import type { LaneView } from './lanes.ts';
import { TopTableCard } from './TopTableCard.tsx';
import type { Catalogue } from './types.ts';

/**
 * The lane's top tables. The catalogue says which top dimensions the API offers and how it names
 * them; until it answers (or if it cannot), the lane's own list stands. It also says which tables' rows
 * may filter the lane's figures.
 */
export function TopTables({
  siteId,
  choices,
  view,
  catalogue,
  onFilter,
}: {
  siteId: string;
  choices: Choices;
  view: LaneView;
  catalogue: Catalogue | undefined;
  onFilter: (dimension: string, value: string | null) => void;
}) {
  const tables = catalogue ? view.tables.filter((t) => t.dimension in catalogue.topDimensions) : view.tables;
  // A row filters the dashboard when the lane's figures can be filtered by its dimension.
  const filterable = new Set(catalogue?.metricSets[view.metrics]?.filters ?? []);
  return (
    <div className="dash-tops">
      {tables.map((t) => (
        <TopTableCard
          key={t.dimension}
          siteId={siteId}
          choices={choices}
          table={t}
          columnLabel={catalogue?.dimensionLabels[t.dimension] ?? t.title}
          onFilter={filterable.has(t.dimension) ? onFilter : undefined}
        />
      ))}
    </div>
  );
}
