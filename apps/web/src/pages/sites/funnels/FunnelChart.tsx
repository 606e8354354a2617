import { formatCount, formatDuration, formatPercent } from '../../../lib/format.ts';
import { type FunnelResults, type FunnelStepResult, stepLabel } from './data.ts';

const FEW = 'fewer than 5 visitors';

/** A bar's length: the step's visitors relative to step 1's (0 to 100). */
function barWidth(step: FunnelStepResult, first: number | null): number {
  if (step.visitors === null || !first) return 0;
  return Math.max(0, Math.min(100, (step.visitors / first) * 100));
}

/** "40% dropped off · median 1m 05s from step 1": what happened between the step before and this one. */
function between(step: FunnelStepResult): string {
  if (step.dropOff === null) return `${FEW} went on from step ${step.step - 1}`;
  const median = step.medianSeconds === null ? '' : ` · median ${formatDuration(step.medianSeconds)} from step ${step.step - 1}`;
  return `${formatPercent(step.dropOff)} dropped off${median}`;
}

/**
 * The classic funnel: one bar per step, as long as its visitors relative to step 1, with the step, its
 * visitors and conversion beside it and, between bars, the drop-off and the median time. It is an ordered
 * list of text; the bars themselves are decoration for screen readers, which read the same figures.
 */
export function FunnelChart({ results }: { results: FunnelResults }) {
  const first = results.steps[0]?.visitors ?? null;
  return (
    <ol className="funnel-chart" aria-label={`Steps of ${results.funnel.name}`} data-testid="funnel-chart">
      {results.steps.map((s) => (
        <li key={s.step} className="funnel-step" aria-label={`Step ${s.step}`} data-step={s.step}>
          {s.step > 1 && <p className="funnel-between muted">↓ {between(s)}</p>}
          <div className="funnel-step-head">
            <span className="funnel-step-name">
              {s.step}. <code>{stepLabel(s)}</code>
            </span>
            <span className="funnel-step-figures" data-testid="step-figures">
              {s.visitors === null ? FEW : `${formatCount(s.visitors)} visitors · ${formatPercent(s.conversion ?? 0)}`}
            </span>
          </div>
          <div className="funnel-track" aria-hidden="true">
            <div
              className={s.visitors === null ? 'funnel-bar funnel-bar-none' : 'funnel-bar'}
              style={{ width: `${barWidth(s, first)}%` }}
              data-width={barWidth(s, first).toFixed(1)}
            />
          </div>
        </li>
      ))}
    </ol>
  );
}
