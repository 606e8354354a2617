import { useId } from 'react';
import { CustomRange } from './CustomRange.tsx';
import { type Choices, RANGE_CHOICES, type RangeKey } from './choices.ts';
import { addDays, todayIn } from './period.ts';

/** The report days: a preset (Today … 12 months) or a custom from/to. */
export function RangePicker({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  const id = useId();
  const daysAgo = (n: number) => customDayAgo(choices, n);
  const pick = (range: RangeKey) => {
    if (range !== 'custom') onChange({ range });
    // Custom starts as the last 7 days, then edited below and applied.
    else onChange({ range: 'custom', from: daysAgo(6), to: daysAgo(0) });
  };
  return (
    <div className="dash-range">
      <label htmlFor={id} className="dash-control-label">
        Range
      </label>
      <select
        id={id}
        name="range"
        className="dash-select"
        value={choices.range}
        onChange={(e) => pick(e.target.value as RangeKey)}
      >
        {RANGE_CHOICES.map((r) => (
          <option key={r.key} value={r.key}>
            {r.label}
          </option>
        ))}
        <option value="custom">Custom…</option>
      </select>
      {choices.range === 'custom' && (
        <CustomRange
          key={`${choices.from}|${choices.to}`}
          from={choices.from ?? daysAgo(6)}
          to={choices.to ?? daysAgo(0)}
          onApply={(from, to) => onChange({ range: 'custom', from, to })}
        />
      )}
    </div>
  );
}

/**
 * A day `n` days before the site's today (the report days are the site's, not the browser's calendar): where a
 * custom range starts, as the last 7 days.
 */
export const customDayAgo = (c: Pick<Choices, 'today'>, n: number): string => addDays(c.today ?? todayIn(), -n);
