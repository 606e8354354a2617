import { Card } from '../../../components/Card.tsx';
import { ChartTable } from '../../../components/charts/ChartTable.tsx';
import { type ChartLine, SeriesChart } from '../../../components/charts/SeriesChart.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatCount, formatPeriod } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { DaysPicker } from './DaysPicker.tsx';
import { useDecisions } from './data.ts';
import { ActionCounts, ActionHeads, ReasonsTable } from './parts.tsx';
import { ACTIONS, type Action, CATEGORIES, type Decisions } from './types.ts';

const TONE: Record<Action, ChartLine['tone']> = { allow: 'primary', challenge: 'warn', deny: 'danger' };

/** What the gate did over the last days: totals, a line per action over days, by crawler category and by reason. */
export function DecisionsCard({ siteId, days, onDays }: { siteId: string; days: number; onDays: (days: number) => void }) {
  const report = useDecisions(siteId, days);
  const data = report.data;
  return (
    <Card title="Decisions" aside={<DaysPicker id="decisions-days" days={days} onChange={onDays} />}>
      <p className="card-intro">
        What the gate did with every request except your team’s own. Records sent without a decision count as allowed.
      </p>
      {report.isError && <Notice tone="error">{toProblem(report.error).title}</Notice>}
      {report.isPending && <p className="loading">Loading…</p>}
      {data && <DecisionsBody report={data} busy={report.isFetching} />}
    </Card>
  );
}

function DecisionsBody({ report, busy }: { report: Decisions; busy: boolean }) {
  const days = report.series.map((d) => d.day);
  const lines: ChartLine[] = ACTIONS.map((a) => ({
    key: a.value,
    label: a.label,
    tone: TONE[a.value],
    values: report.series.map((d) => d[a.value]),
    previous: null,
  }));
  const name = `Decisions per day, ${formatPeriod(report.from, report.to)}`;
  const category = (c: string | null) =>
    c === null ? 'Browsers and unknown clients' : (CATEGORIES.find((x) => x.value === c)?.label ?? c);
  return (
    <div className="decisions" aria-busy={busy} data-testid="decisions">
      <ul className="dash-legend" aria-label="Decisions in the period">
        {ACTIONS.map((a) => (
          <li key={a.value} className={`dash-chart-${TONE[a.value]}`}>
            <span className="dash-swatch" aria-hidden="true" />
            {a.label} <strong>{formatCount(report.totals[a.value])}</strong>
          </li>
        ))}
        <li className="muted">
          {formatCount(report.totals.total)} requests, {formatPeriod(report.from, report.to)}
        </li>
      </ul>
      {report.totals.total === 0 ? (
        <p className="site-none">No requests recorded in this period: requests arrive from the edge worker SDK or proxy mode.</p>
      ) : (
        <>
          <SeriesChart name={name} days={days} previousDays={null} lines={lines} />
          <ChartTable name="Decisions per day" days={days} lines={lines} />
          <div className="protection-tables">
            <div className="site-table-wrap">
              <table className="site-table" aria-label="Decisions by crawler category">
                <thead>
                  <tr>
                    <th scope="col">Category</th>
                    <ActionHeads />
                  </tr>
                </thead>
                <tbody>
                  {report.byCategory.map((c) => (
                    <tr key={c.category ?? '(browsers)'}>
                      <th scope="row">{category(c.category)}</th>
                      <ActionCounts counts={c} />
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <ReasonsTable
              label="Decisions by reason"
              rows={report.rows.map((r) => ({
                action: r.action,
                reason: r.reason,
                count: r.count,
                client: r.name ?? (r.kind === 'browser' || r.kind === null ? 'browser' : r.kind),
              }))}
            />
          </div>
        </>
      )}
    </div>
  );
}
