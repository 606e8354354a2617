import { keepPreviousData, skipToken, useQuery } from '@tanstack/react-query';
import { PROPERTY_PREFIX } from '@us/shared';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatCount } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { type Choices, laneOf, rangeFields, whereParams } from './choices.ts';

/**
 * The Properties card (issue 40 item 2): pick one of the custom property keys the site's pages sent in the
 * last 30 days, then see the pageviews of each of its values in the dashboard's range and filters; a value
 * filters the whole dashboard by it (`where.prop:<key>`). Nothing is shown for a site that sent none.
 */
export function PropertiesCard({
  siteId,
  choices,
  onFilter,
}: {
  siteId: string;
  choices: Choices;
  onFilter: (dimension: string, value: string | null) => void;
}) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.stats.properties.queryOptions({ id: siteId }));
  const [picked, setPicked] = useState<string | null>(null);
  const key = picked ?? keys.data?.keys[0]?.key ?? null;
  const dimension = key ? `${PROPERTY_PREFIX}${key}` : null;
  const input = dimension
    ? {
        id: siteId,
        metrics: 'pageviews' as const,
        by: dimension,
        lane: laneOf(choices.lane),
        limit: 10,
        ...rangeFields(choices),
        ...whereParams(choices.filters),
      }
    : null;
  const values = useQuery(trpc.stats.get.queryOptions(input ?? skipToken, { placeholderData: keepPreviousData }));
  if (!keys.data?.keys.length) return null;
  const filtered = dimension !== null && dimension in choices.filters;
  const picker = (
    <label className="dash-prop-pick">
      <span className="site-visually-hidden">Property</span>
      <select value={key ?? ''} onChange={(e) => setPicked(e.target.value)}>
        {keys.data.keys.map((k) => (
          <option key={k.key} value={k.key}>
            {k.key}
          </option>
        ))}
      </select>
    </label>
  );
  const rows = values.data?.rows ?? [];
  return (
    <div className="dash-top-card dash-properties" data-dimension="properties" aria-busy={values.isFetching}>
      <Card title="Properties" aside={picker}>
        {values.isError && <Notice tone="error">{toProblem(values.error).title}</Notice>}
        {values.data && rows.length === 0 && <p className="dash-top-empty muted">Nothing in this range.</p>}
        {rows.length > 0 && (
          <table className="dash-top" aria-label={`Pageviews by property ${key}`}>
            <thead>
              <tr>
                <th scope="col">{key}</th>
                <th scope="col" className="dash-top-num">
                  Pageviews
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const label = row.value ?? '(none)';
                return (
                  <tr key={label}>
                    <th scope="row" className="dash-top-label">
                      {filtered || !dimension ? (
                        <span className="dash-top-text">{label}</span>
                      ) : (
                        <button
                          type="button"
                          className="dash-top-text dash-top-filter"
                          title={`Filter by ${key} ${label}`}
                          onClick={() => onFilter(dimension, row.value)}
                        >
                          {label}
                        </button>
                      )}
                    </th>
                    <td className="dash-top-num">{formatCount(row.counts.pageviews ?? 0)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        <p className="dash-top-more muted">
          {key && keys.data.kept.includes(key)
            ? `${key} is kept past 90 days (the site's kept properties).`
            : "Properties are kept for the last 90 days; longer for the keys kept in the site's settings."}
        </p>
      </Card>
    </div>
  );
}
