import type { Choices } from './choices.ts';
import type { LaneView, TableDef } from './lanes.ts';
import { TopTableCard } from './TopTableCard.tsx';
import type { Catalogue } from './types.ts';

/**
 * The lane's top tables, a card each, some with tabs (Sources · Referrers · Mediums · Campaigns…). The
 * catalogue says which top dimensions the API offers, how it names them, which filters each table's
 * figures take, and which tables' rows may filter the lane's figures; until it answers (or if it
 * cannot), the lane's own lists stand.
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
  const offered = (t: TableDef) => !catalogue || t.dimension in catalogue.topDimensions;
  const cards = view.cards.map((card) => card.filter(offered)).filter((card) => card.length > 0);
  // A row filters the dashboard when the lane's figures can be filtered by its dimension.
  const filterable = new Set(catalogue?.metricSets[view.metrics]?.filters ?? []);
  // Custom property filters (prop:<key>) apply to the metric sets the catalogue's patterns name.
  const propertySets = new Set(catalogue?.dimensionPatterns.flatMap((p) => p.metricSets) ?? []);
  const propertyFilters = Object.keys(choices.filters).filter((d) => d.startsWith('prop:'));
  /** The filters a table's own metric set takes (events have no source, for one); undefined: all. */
  const filtersOf = (t: TableDef) => {
    const set = catalogue?.topDimensions[t.dimension as keyof Catalogue['topDimensions']];
    const filters = set ? catalogue?.metricSets[set]?.filters : undefined;
    return filters && set && propertySets.has(set) ? [...filters, ...propertyFilters] : filters;
  };
  return (
    <div className="dash-tops">
      {cards.map((card) => (
        <TopTableCard
          key={card[0]?.title}
          siteId={siteId}
          choices={choices}
          tabs={card}
          columnLabel={(t) => catalogue?.dimensionLabels[t.dimension] ?? t.title}
          filtersOf={filtersOf}
          onFilter={(t) => (filterable.has(t.dimension) ? onFilter : undefined)}
        />
      ))}
    </div>
  );
}
