import type { Goal } from '../types.ts';

/** Which of the site's goals counts as converted (`?goal=`); empty means the API's default, the first event goal. */
export function GoalPicker({ goals, value, onChange }: { goals: Goal[]; value: string; onChange: (goal: string) => void }) {
  return (
    <span className="dash-range">
      <label htmlFor="experiment-goal" className="dash-control-label">
        Goal
      </label>
      <select id="experiment-goal" className="dash-select" value={value} onChange={(e) => onChange(e.target.value)}>
        {value === '' && <option value="">First event goal</option>}
        {goals.map((g) => (
          <option key={g.id} value={g.id}>
            {g.name} ({g.type === 'event' ? 'event' : 'page'} {g.match})
          </option>
        ))}
      </select>
    </span>
  );
}
