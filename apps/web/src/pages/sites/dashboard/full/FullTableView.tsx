import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ReactNode, useMemo } from 'react';
import { Card } from '../../../../components/Card.tsx';
import { Notice } from '../../../../components/Notice.tsx';
import { formatPeriod } from '../../../../lib/format.ts';
import { toProblem } from '../../../../problem.ts';
import { Link, setSearch, useSearch } from '../../../../router.tsx';
import { useTRPC } from '../../../../trpc.ts';
import { useDashboardBase } from '../base.tsx';
import { choicesToParams, type Filters, laneLabel, laneOf, parseChoices, rangeFields, whereParams } from '../choices.ts';
import { FilterChips } from '../FilterChips.tsx';
import { LANE_VIEWS } from '../lanes.ts';
import { todayIn } from '../period.ts';
import { countLabel, formatCountOf } from './counts.ts';
import { FullTable } from './FullTable.tsx';
import { TableSearch } from './TableSearch.tsx';
import { PAGE_ROWS, parseTableChoices, type TableChoices, tableChoicesToParams } from './tableChoices.ts';

const AVERAGES = new Set(['scroll_depth', 'time_on_page', 'value_average']);

/**
 * One of the dashboard's tables in full, under the same lane, range and filters: every count of the
 * lane's metric set, sorting by any of them, search, paging and a CSV of the rows shown. Everything it
 * shows is in the address. `frame` puts it in its page (the owner's, or a shared view's).
 */
export function FullTableView({
  siteId: id,
  siteName: name,
  timezone,
  dimension,
  frame,
}: {
  siteId: string;
  siteName: string | undefined;
  /** The site's time zone, once known: where Yesterday counts from, as on the dashboard. */
  timezone: string | undefined;
  dimension: string;
  frame: (title: string, body: ReactNode) => ReactNode;
}) {
  const search = useSearch();
  const choices = useMemo(
    () => ({ ...parseChoices(search), ...(timezone ? { today: todayIn(timezone) } : {}) }),
    [search, timezone],
  );
  const table = useMemo(() => parseTableChoices(search), [search]);
  const trpc = useTRPC();
  const catalogue = useQuery(trpc.stats.catalogue.queryOptions());
  const view = LANE_VIEWS[choices.lane];
  const def = view.tables.find((t) => t.dimension === dimension);
  // Events tables count events (site events only, as the card); exit pages the visits ending there; the
  // others every count of the lane's set.
  const ranked = catalogue.data?.topDimensions[dimension as keyof NonNullable<typeof catalogue.data>['topDimensions']];
  const events = ranked === 'events';
  const laneHasIt = catalogue.data?.metricSets[view.metrics]?.dimensions.includes(dimension) ?? true;
  const metrics: 'events' | 'pageviews' | 'requests' | 'sessions' = events
    ? 'events'
    : !laneHasIt && ranked === 'sessions'
      ? 'sessions'
      : view.metrics;
  const takes = catalogue.data?.metricSets[metrics]?.filters;
  const filters = takes
    ? Object.fromEntries(Object.entries(choices.filters).filter(([d]) => takes.includes(d)))
    : choices.filters;
  const defaultSort = def?.count ?? (metrics === 'pageviews' ? 'sessions' : metrics);
  const sort = table.sort ?? defaultSort;
  // The total under the table: of the sort count, unless that is an average (then the default count's).
  const totalOf = AVERAGES.has(sort) ? defaultSort : sort;
  const input = {
    id,
    metrics,
    by: dimension,
    lane: laneOf(choices.lane),
    sort,
    limit: PAGE_ROWS,
    offset: (table.page - 1) * PAGE_ROWS,
    ...(table.q ? { search: table.q } : {}),
    ...rangeFields(choices),
    ...whereParams(events ? { ...filters, kind: 'event' } : filters),
  };
  const rows = useQuery({
    ...trpc.stats.get.queryOptions(input),
    enabled: def !== undefined && catalogue.data !== undefined,
    placeholderData: keepPreviousData,
  });

  const title = def ? `${def.title}${name ? ` of ${name}` : ''}` : 'No such table';
  const label = catalogue.data?.dimensionLabels[dimension] ?? def?.title ?? dimension;
  const change = (patch: Partial<TableChoices>) =>
    setSearch(tableChoicesToParams({ ...table, page: 1, ...patch }, new URLSearchParams(window.location.search)));
  const setFilters = (filters: Filters) =>
    setSearch(tableChoicesToParams({ ...table, page: 1 }, choicesToParams({ ...choices, filters }, new URLSearchParams(search))));
  const dashboard = useDashboardBase(id).path;
  const back = choicesToParams(choices).toString();
  const answer = rows.data;

  return frame(
    title,
    <>
      <p>
        <Link to={`${dashboard}${back ? `?${back}` : ''}`}>← Back to the dashboard</Link>
      </p>
      {!def && (
        <Notice tone="error">
          {laneLabel(choices.lane)} has no {dimension} table: choose one of {view.tables.map((t) => t.title).join(', ')} on the
          dashboard.
        </Notice>
      )}
      <FilterChips filters={choices.filters} labels={catalogue.data?.dimensionLabels} onChange={setFilters} />
      {def && (
        <Card
          title={`All ${def.title.toLowerCase()}`}
          aside={
            answer && (
              <span className="muted">
                {formatPeriod(answer.from, answer.to)} · {laneLabel(choices.lane)}
              </span>
            )
          }
        >
          <TableSearch label={`Search ${def.title.toLowerCase()}`} value={table.q} onSearch={(q) => change({ q })} />
          {/* The rows wait for the catalogue (the lane's counts): its failure is theirs. */}
          {(rows.error ?? catalogue.error) && <Notice tone="error">{toProblem(rows.error ?? catalogue.error).title}</Notice>}
          {rows.isPending && !rows.error && !catalogue.error && <p className="loading">Loading…</p>}
          {answer && (
            <FullTable
              title={def.title}
              dimension={dimension}
              valueLabel={label}
              answer={answer}
              sort={sort}
              offset={input.offset}
              busy={rows.isFetching}
              onSort={(s) => change({ sort: s })}
              onPage={(page) => change({ page })}
              page={table.page}
            />
          )}
          {answer && (
            <p className="muted dash-full-total">
              {totalOf === 'value_sum'
                ? `Values add up to ${formatCountOf(totalOf, answer.totals[totalOf] ?? 0)}`
                : `${formatCountOf(totalOf, answer.totals[totalOf] ?? 0)} ${countLabel(totalOf).toLowerCase()} in all`}
              {table.q ? ` (every value, not only those matching “${table.q}”)` : ''}.
            </p>
          )}
        </Card>
      )}
    </>,
  );
}
