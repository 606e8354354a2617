import { useId } from 'react';
import { type Choices, daysOfChoices, intervalOfChoices, olderThanHours } from './choices.ts';
import { fits, INTERVALS, type Interval } from './period.ts';

/** The chart's interval: only those that fit the range (hours up to 2 days within the last 90, weeks from 14, months from 60). */
export function IntervalPicker({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  const id = useId();
  const days = daysOfChoices(choices);
  const offered = INTERVALS.filter((i) => fits(i.key, days, olderThanHours(choices)));
  return (
    <div className="dash-range">
      <label htmlFor={id} className="dash-control-label">
        Interval
      </label>
      <select
        id={id}
        name="interval"
        className="dash-select"
        value={intervalOfChoices(choices)}
        onChange={(e) => onChange({ interval: e.target.value as Interval })}
      >
        {offered.map((i) => (
          <option key={i.key} value={i.key}>
            {i.label}
          </option>
        ))}
      </select>
    </div>
  );
}
