import { formatCount, formatPercent } from '../../../lib/format.ts';
import type { GoalResult } from './data.ts';

/** Completions, sessions reaching the goal and the conversion rate, as a list of labelled figures. */
export function GoalFigures({ goal }: { goal: GoalResult }) {
  const rate = goal.rate === null ? null : formatPercent(goal.rate);
  return (
    <ul className="goal-figures" aria-label={`Figures of ${goal.name}`}>
      <li aria-label="Completions">
        <span className="goal-figure-label">Completions</span>
        <strong className="goal-figure-value">{formatCount(goal.completions)}</strong>
      </li>
      <li aria-label="Sessions reaching it">
        <span className="goal-figure-label">Sessions reaching it</span>
        <strong className="goal-figure-value">{goal.sessions === null ? '—' : formatCount(goal.sessions)}</strong>
      </li>
      <li aria-label="Conversion rate">
        <span className="goal-figure-label">Conversion rate</span>
        <strong className="goal-figure-value">{rate ?? '—'}</strong>
        {rate !== null && goal.sessions !== null && goal.visits !== null && (
          <span className="muted goal-figure-note">
            {formatCount(goal.sessions)} of {formatCount(goal.visits)} visits
          </span>
        )}
      </li>
    </ul>
  );
}
