import type { Choices } from './choices.ts';
import type { LaneView } from './lanes.ts';
import { TopTableCard } from './TopTableCard.tsx';
import type { Catalogue } from './types.ts';

/**
 * The lane's top tables. The catalogue says which top dimensions the API offers and how it names
 * them; until it answers (or if it cannot), the lane's own list stands.
 */
export function TopTables({
  siteId,
  choices,
  view,
  catalogue,
}: {
  siteId: string;
  choices: Choices;
  view: LaneView;
  catalogue: Catalogue | undefined;
}) {
  const tables = catalogue ? view.tables.filter((t) => t.dimension in catalogue.topDimensions) : view.tables;
  return (
    <div className="dash-tops">
      {tables.map((t) => (
        <TopTableCard
          key={t.dimension}
          siteId={siteId}
          choices={choices}
          table={t}
          columnLabel={catalogue?.dimensionLabels[t.dimension] ?? t.title}
        />
      ))}
    </div>
  );
}
