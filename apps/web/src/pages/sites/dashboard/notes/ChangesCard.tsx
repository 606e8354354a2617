import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Card } from '../../../../components/Card.tsx';
import { Notice } from '../../../../components/Notice.tsx';
import { formatCount, formatPercent, formatPeriod } from '../../../../lib/format.ts';
import { toProblem } from '../../../../problem.ts';
import { useTRPC } from '../../../../trpc.ts';
import { type Choices, comparedPeriodFields } from '../choices.ts';

const METRICS = [
  { key: 'visits', label: 'Visits' },
  { key: 'pageviews', label: 'Pageviews' },
] as const;
type Metric = (typeof METRICS)[number]['key'];

/** How many drivers the card lists (the API gives up to ten). */
const SHOWN = 5;

/**
 * "What changed?": this period against the one before it (or the comparison range chosen, as the headline
 * measures compare), and the values that explain most of the change
 * in visits or pageviews, each in words (`changes.get`, GET /v1/sites/{id}/changes), with the filters in force;
 * asked when the person asks, then kept up to date with the choices.
 */
export function ChangesCard({ siteId, choices }: { siteId: string; choices: Choices }) {
  const [metric, setMetric] = useState<Metric>('visits');
  // Asked on demand: it reads every dimension of both periods, more than the rest of the dashboard together.
  const [asked, setAsked] = useState(false);
  const changes = useQuery(
    useTRPC().changes.get.queryOptions(
      { id: siteId, metric, ...comparedPeriodFields(choices) },
      {
        enabled: asked,
        placeholderData: keepPreviousData,
      },
    ),
  );
  const c = changes.data;
  const sign = (n: number) => (n > 0 ? '+' : n < 0 ? '−' : '±');
  return (
    <Card
      title="What changed?"
      aside={
        <div className="field dash-changes-metric">
          <label htmlFor="dash-changes-metric">Explain</label>
          <select id="dash-changes-metric" value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
            {METRICS.map((m) => (
              <option key={m.key} value={m.key}>
                {m.label}
              </option>
            ))}
          </select>
        </div>
      }
    >
      {!asked && (
        <p className="card-intro">
          Which sources, pages, countries and devices explain the change since the period before.{' '}
          <button type="button" className="button button-secondary button-small" onClick={() => setAsked(true)}>
            Explain the change
          </button>
        </p>
      )}
      {changes.error && <Notice tone="error">{toProblem(changes.error).title}</Notice>}
      {asked && !c && !changes.error && <p className="loading">Loading…</p>}
      {c && (
        <div aria-busy={changes.isFetching} data-testid="changes">
          <p className="dash-changes-total">
            <strong>{formatCount(c.current)}</strong> {metric} in {formatPeriod(c.from, c.to)} against {formatCount(c.previous)}{' '}
            in {formatPeriod(c.previousFrom, c.previousTo)}:{' '}
            <strong>
              {sign(c.change)}
              {formatCount(Math.abs(c.change))}
              {c.changePercent !== null && ` (${sign(c.changePercent)}${formatPercent(Math.abs(c.changePercent))})`}
            </strong>
          </p>
          {c.drivers.length === 0 ? (
            <p className="site-none">Nothing moved: every source, page, country and device gave what it gave before.</p>
          ) : (
            <ol className="dash-changes" aria-label="What moved most">
              {c.drivers.slice(0, SHOWN).map((d) => (
                <li key={`${d.dimension} ${d.value}`} className={d.change > 0 ? 'dash-change-up' : 'dash-change-down'}>
                  {d.sentence}
                  {d.share !== null && <span className="muted"> · {formatPercent(d.share)} of the change</span>}
                </li>
              ))}
            </ol>
          )}
          {c.note && <p className="field-hint">{c.note}</p>}
        </div>
      )}
    </Card>
  );
}
