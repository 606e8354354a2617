import { useQuery } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { type Choices, choicesToParams } from './choices.ts';
import { topOptions } from './data.ts';
import type { TableDef } from './lanes.ts';
import { TopTableRows } from './TopTableRows.tsx';
import { splitAttribution } from './topValues.ts';

/** The table in full, under the same lane, range and filters. */
function fullTableHref(siteId: string, dimension: string, choices: Choices): string {
  const q = choicesToParams(choices).toString();
  return `/sites/${encodeURIComponent(siteId)}/dashboard/${encodeURIComponent(dimension)}${q ? `?${q}` : ''}`;
}

/** One ranked table of the lane (sources, pages, crawlers…), loaded on its own so one failure stays local. */
export function TopTableCard({
  siteId,
  choices,
  table,
  columnLabel,
  onFilter,
}: {
  siteId: string;
  choices: Choices;
  table: TableDef;
  columnLabel: string;
  onFilter: ((dimension: string, value: string | null) => void) | undefined;
}) {
  const top = useQuery(topOptions(useTRPC(), siteId, choices, table));
  const data = top.data;
  const attribution = data?.attribution ? splitAttribution(data.attribution) : null;
  return (
    <div className="dash-top-card" data-dimension={table.dimension} aria-busy={top.isFetching}>
      <Card title={table.title}>
        {top.isError && <Notice tone="error">{toProblem(top.error).title}</Notice>}
        {top.isPending && <p className="loading">Loading…</p>}
        {data && (
          <TopTableRows
            table={data}
            title={table.title}
            columnLabel={columnLabel}
            onFilter={table.dimension in choices.filters ? undefined : onFilter}
            fullHref={fullTableHref(siteId, table.dimension, choices)}
          />
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
