import { valueLabel } from '../topValues.ts';
import type { StatsResult } from '../types.ts';
import { countLabel, formatCountOf, toCsv } from './counts.ts';
import { PAGE_ROWS } from './tableChoices.ts';

/**
 * One page of a full table: the value and every count, each count's heading a button that ranks by it
 * (`aria-sort` on the ranked column), a pager, and the rows shown as a CSV download.
 */
export function FullTable({
  title,
  dimension,
  valueLabel: valueHeading,
  answer,
  sort,
  offset,
  page,
  busy,
  onSort,
  onPage,
}: {
  title: string;
  dimension: string;
  valueLabel: string;
  answer: StatsResult;
  sort: string;
  offset: number;
  page: number;
  busy: boolean;
  onSort: (count: string) => void;
  onPage: (page: number) => void;
}) {
  const counts = [...answer.counts].sort((a, b) => (a === sort ? -1 : b === sort ? 1 : 0));
  const shown = answer.rows.map((r) => ({ value: valueLabel(dimension, r.value), counts: r.counts }));
  const csv = `data:text/csv;charset=utf-8,${encodeURIComponent(toCsv(valueHeading, counts, shown))}`;
  const file = `${dimension}-${answer.from}-${answer.to}${page > 1 ? `-page-${page}` : ''}.csv`;
  if (answer.rows.length === 0) {
    return <p className="muted">{page > 1 ? 'No more rows.' : 'Nothing in this range matches.'}</p>;
  }
  return (
    <div aria-busy={busy}>
      <div className="table-scroll">
        <table className="dash-top dash-full" aria-label={`All ${title.toLowerCase()}`}>
          <thead>
            <tr>
              <th scope="col">{valueHeading}</th>
              {counts.map((c) => (
                <th key={c} scope="col" className="dash-top-num" aria-sort={c === sort ? 'descending' : 'none'}>
                  <button type="button" className="dash-sort" onClick={() => onSort(c)} aria-pressed={c === sort}>
                    {countLabel(c)}
                    {c === sort ? ' ↓' : ''}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row, i) => (
              <tr key={answer.rows[i]?.value ?? '(none)'}>
                <th scope="row" className="dash-top-label">
                  <span className="dash-top-text" title={row.value}>
                    {row.value}
                  </span>
                </th>
                {counts.map((c) => (
                  <td key={c} className="dash-top-num">
                    {formatCountOf(c, row.counts[c] ?? 0)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="dash-full-pager" aria-label="Pages of the table">
        <span className="muted">
          Rows {offset + 1}–{offset + answer.rows.length}
        </span>
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={page <= 1}
          onClick={() => onPage(page - 1)}
        >
          Previous
        </button>
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={!answer.truncated}
          onClick={() => onPage(page + 1)}
        >
          Next
        </button>
        <a className="button button-link button-small" href={csv} download={file}>
          Download CSV
        </a>
      </nav>
      <p className="muted dash-full-note">
        The CSV holds the {answer.rows.length} rows shown; {PAGE_ROWS} rows a page.
      </p>
    </div>
  );
}
