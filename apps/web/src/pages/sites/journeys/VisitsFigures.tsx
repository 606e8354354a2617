import { formatCount, formatPercent } from '../../../lib/format.ts';
import type { Journeys } from './data.ts';

/** Visits in the period and the share of them reaching each goal, as a list of labelled figures. */
export function VisitsFigures({ journeys }: { journeys: Journeys }) {
  return (
    <ul className="goal-figures" aria-label="Visits and goal rates">
      <li aria-label="Visits">
        <span className="goal-figure-label">Visits</span>
        <strong className="goal-figure-value">{formatCount(journeys.visits)}</strong>
      </li>
      {journeys.goals.map((g) => (
        <li key={g.id} aria-label={`${g.name} rate`}>
          <span className="goal-figure-label">{g.name}</span>
          <strong className="goal-figure-value">{g.rate === null ? '—' : formatPercent(g.rate)}</strong>
          <span className="muted goal-figure-note">
            {g.sessions === null ? 'fewer than 5 visits' : `${formatCount(g.sessions)} sessions`}
          </span>
        </li>
      ))}
    </ul>
  );
}
