import { useState } from 'react';
import { type Choices, periodOfChoices } from './choices.ts';
import { DayRangeForm } from './DayRangeForm.tsx';
import { addDays, lengthOf } from './period.ts';

/**
 * "Compare with…": a custom earlier range (the API's compareFrom/compareTo), two days and Compare; Previous
 * period goes back to the days just before.
 */
export function CompareRange({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  const period = periodOfChoices(choices);
  const [open, setOpen] = useState(choices.compareFrom !== null);
  if (!open) {
    return (
      <button type="button" className="button button-secondary button-small" onClick={() => setOpen(true)}>
        Compare with…
      </button>
    );
  }
  const from = choices.compareFrom ?? addDays(period.from, -365);
  return (
    <DayRangeForm
      name="compareRange"
      ariaLabel="Compare with an earlier range"
      fields={{ from: 'compareFrom', to: 'compareTo' }}
      labels={{ from: 'Compare from', to: 'to' }}
      initial={{ from, to: choices.compareTo ?? addDays(from, lengthOf(period) - 1) }}
      latest={addDays(period.from, -1)}
      submitLabel="Compare"
      onSubmit={(compareFrom, compareTo) => onChange({ compare: true, compareFrom, compareTo })}
    >
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
    </DayRangeForm>
  );
}
