import { formatPercent } from '../../../lib/format.ts';
import { Link } from '../../../router.tsx';
import { countLabel, formatCountOf } from './full/counts.ts';
import { valueLabel } from './topValues.ts';
import type { TopTable } from './types.ts';

/**
 * The rows of a top table, each with a bar as long as its count against the first row's. A row's label
 * is a button that filters the whole dashboard by its value (`onFilter`), unless the table is already
 * filtered by its own dimension.
 */
export function TopTableRows({
  table,
  title,
  columnLabel,
  onFilter,
  fullHref,
}: {
  table: TopTable;
  title: string;
  columnLabel: string;
  onFilter?: (dimension: string, value: string | null) => void;
  /** The table in full (every count, search, paging, CSV). */
  fullHref: string;
}) {
  if (table.rows.length === 0) return <p className="dash-top-empty muted">Nothing in this range.</p>;
  const most = Math.max(0, ...table.rows.map((r) => r.count)) || 1;
  // Exit pages show how often a page ended a visit (of its pageviews) rather than its share of exits.
  const exitRates = table.rows.some((r) => r.exitRate !== undefined);
  return (
    <>
      <table className="dash-top" aria-label={`Top ${title.toLowerCase()}`}>
        <thead>
          <tr>
            <th scope="col">{columnLabel}</th>
            <th scope="col" className="dash-top-num">
              {countLabel(table.count)}
            </th>
            <th scope="col" className="dash-top-num">
              {exitRates ? 'Exit rate' : 'Share'}
            </th>
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => {
            const label = valueLabel(table.dimension, row.value);
            return (
              <tr key={row.value ?? '(none)'}>
                <th scope="row" className="dash-top-label">
                  <span
                    className="dash-top-bar"
                    style={{ width: `${(Math.max(0, row.count) / most) * 100}%` }}
                    aria-hidden="true"
                  />
                  {onFilter ? (
                    <button
                      type="button"
                      className="dash-top-text dash-top-filter"
                      title={`Filter by ${label}`}
                      onClick={() => onFilter(table.dimension, row.value)}
                    >
                      {label}
                    </button>
                  ) : (
                    <span className="dash-top-text" title={label}>
                      {label}
                    </span>
                  )}
                </th>
                <td className="dash-top-num">{formatCountOf(table.count, row.count)}</td>
                <td className="dash-top-num muted">
                  {exitRates ? (row.exitRate == null ? '–' : formatPercent(row.exitRate)) : formatPercent(row.share)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="dash-top-more muted">
        {table.truncated ? `The top ${table.rows.length} of more: ` : ''}
        <Link to={fullHref}>{table.truncated ? `see all ${title.toLowerCase()}` : `Every count of ${title.toLowerCase()}`}</Link>
      </p>
    </>
  );
}
