import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { useDashboardBase } from './base.tsx';
import { type Choices, choicesToParams, type Filters } from './choices.ts';
import { topOptions } from './data.ts';
import type { TableDef } from './lanes.ts';
import { TopTableRows } from './TopTableRows.tsx';
import { splitAttribution } from './topValues.ts';

type OnFilter = (dimension: string, value: string | null) => void;

// The map and its world shapes load only when its tab is chosen (a chunk of their own).
const WorldMap = lazy(() => import('./map/WorldMap.tsx').then((m) => ({ default: m.WorldMap })));

/** The table in full, under the same lane, range and filters (entry pages ranked by sessions, event values by value). */
function fullTableHref(dashboard: string, table: TableDef, choices: Choices): string {
  const q = choicesToParams(choices);
  if (table.count === 'sessions' || table.count === 'value_sum') q.set('sort', table.count);
  const search = q.toString();
  return `${dashboard}/${encodeURIComponent(table.dimension)}${search ? `?${search}` : ''}`;
}

/**
 * One card of ranked tables (sources, pages, crawlers…), loaded on its own so one failure stays local;
 * with several tables, tabs choose which is shown. Filters the table's figures cannot take (events have
 * no source) are left out and named under it.
 */
export function TopTableCard({
  siteId,
  choices,
  tabs,
  columnLabel,
  filtersOf,
  onFilter,
}: {
  siteId: string;
  choices: Choices;
  tabs: TableDef[];
  columnLabel: (t: TableDef) => string;
  filtersOf: (t: TableDef) => string[] | undefined;
  onFilter: (t: TableDef) => OnFilter | undefined;
}) {
  const dashboard = useDashboardBase(siteId).path;
  const [selected, setSelected] = useState(0);
  const table = tabs[selected] ?? (tabs[0] as TableDef);
  const takes = filtersOf(table);
  const applied: Filters = takes
    ? Object.fromEntries(Object.entries(choices.filters).filter(([d]) => takes.includes(d)))
    : choices.filters;
  const skipped = Object.keys(choices.filters).filter((d) => !(d in applied));
  const top = useQuery(topOptions(useTRPC(), siteId, { ...choices, filters: applied }, table));
  const data = top.data;
  const attribution = data?.attribution ? splitAttribution(data.attribution) : null;
  const tabList = tabs.length > 1 && (
    <div className="dash-tabs" role="tablist" aria-label={`${tabs[0]?.title} tables`}>
      {tabs.map((t, i) => (
        <button
          key={t.title}
          type="button"
          role="tab"
          aria-selected={i === selected}
          className={`dash-tab${i === selected ? ' dash-tab-on' : ''}`}
          onClick={() => setSelected(i)}
        >
          {t.title}
        </button>
      ))}
    </div>
  );
  const filter = table.dimension in choices.filters ? undefined : onFilter(table);
  return (
    <div className="dash-top-card" data-dimension={table.dimension} aria-busy={top.isFetching}>
      <Card title={table.title} aside={tabList}>
        {top.isError && <Notice tone="error">{toProblem(top.error).title}</Notice>}
        {top.isPending && <p className="loading">Loading…</p>}
        {data && table.view === 'map' && (
          <Suspense fallback={<p className="loading">Loading the map…</p>}>
            <WorldMap table={data} onFilter={filter} />
          </Suspense>
        )}
        {data && table.view !== 'map' && (
          <TopTableRows
            table={data}
            title={table.title}
            columnLabel={columnLabel(table)}
            onFilter={filter}
            fullHref={fullTableHref(dashboard, table, choices)}
          />
        )}
        {skipped.length > 0 && (
          <p className="dash-top-more muted">Not filtered by {skipped.join(', ')}: these figures do not have it.</p>
        )}
        {attribution && (
          <p className="dash-attribution">
            {attribution.href ? (
              <a href={attribution.href} target="_blank" rel="noreferrer">
                {attribution.label}
              </a>
            ) : (
              attribution.label
            )}
          </p>
        )}
      </Card>
    </div>
  );
}
