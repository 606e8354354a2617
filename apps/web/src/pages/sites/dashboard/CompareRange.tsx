import { type FormEvent, useState } from 'react';
import { type Choices, periodOfChoices } from './choices.ts';
import { addDays, lengthOf } from './period.ts';

/**
 * "Compare with…": a custom earlier range (the API's compareFrom/compareTo), two days and Apply; Previous
 * period goes back to the days just before.
 */
export function CompareRange({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  const period = periodOfChoices(choices);
  const n = lengthOf(period);
  const [open, setOpen] = useState(choices.compareFrom !== null);
  const [start, setStart] = useState(choices.compareFrom ?? addDays(period.from, -365));
  const [end, setEnd] = useState(choices.compareTo ?? addDays(choices.compareFrom ?? addDays(period.from, -365), n - 1));
  const latest = addDays(period.from, -1);
  const invalid = !start || !end || start > end || end > latest;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid) onChange({ compare: true, compareFrom: start, compareTo: end });
  };
  if (!open) {
    return (
      <button type="button" className="button button-secondary button-small" onClick={() => setOpen(true)}>
        Compare with…
      </button>
    );
  }
  return (
    <form className="dash-custom" name="compareRange" onSubmit={submit} aria-label="Compare with an earlier range">
      <label>
        <span className="dash-control-label">Compare from</span>
        <input
          type="date"
          name="compareFrom"
          className="dash-select"
          value={start}
          max={end || latest}
          required
          onChange={(e) => setStart(e.target.value)}
        />
      </label>
      <label>
        <span className="dash-control-label">to</span>
        <input
          type="date"
          name="compareTo"
          className="dash-select"
          value={end}
          min={start || undefined}
          max={latest}
          required
          onChange={(e) => setEnd(e.target.value)}
        />
      </label>
      <button type="submit" className="button button-secondary button-small" disabled={invalid}>
        Compare
      </button>
      <button
        type="button"
        className="button button-secondary button-small"
        onClick={() => {
          setOpen(false);
          onChange({ compareFrom: null, compareTo: null });
        }}
      >
        Previous period
      </button>
    </form>
  );
}
