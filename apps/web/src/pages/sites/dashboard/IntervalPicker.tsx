import { useId } from 'react';
import { type Choices, daysOfChoices } from './choices.ts';
import { fits, INTERVALS, type Interval, intervalOf } from './period.ts';

/** The chart's interval: only those that fit the range (hours up to 2 days, weeks from 14, months from 60). */
export function IntervalPicker({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  const id = useId();
  const days = daysOfChoices(choices);
  const offered = INTERVALS.filter((i) => fits(i.key, days));
  return (
    <div className="dash-range">
      <label htmlFor={id} className="dash-control-label">
        Interval
      </label>
      <select
        id={id}
        name="interval"
        className="dash-select"
        value={intervalOf(choices.interval, days)}
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
