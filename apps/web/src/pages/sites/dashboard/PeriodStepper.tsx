import { type Choices, periodOfChoices } from './choices.ts';
import { stepped, todayIn } from './period.ts';

/** The period moved back or forward by its length (a custom range then), never past today. */
export function stepChoices(choices: Choices, direction: -1 | 1): Partial<Choices> | null {
  const next = stepped(periodOfChoices(choices), direction, choices.today ?? todayIn());
  return next ? { range: 'custom', from: next.from, to: next.to } : null;
}

/** ← → beside the range picker (keys ← and → do the same). */
export function PeriodStepper({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  const back = stepChoices(choices, -1);
  const forward = stepChoices(choices, 1);
  return (
    <div className="dash-stepper">
      <button
        type="button"
        className="button button-secondary button-small"
        aria-label="Previous period"
        title="Previous period (←)"
        disabled={!back}
        onClick={() => back && onChange(back)}
      >
        ←
      </button>
      <button
        type="button"
        className="button button-secondary button-small"
        aria-label="Next period"
        title="Next period (→)"
        disabled={!forward}
        onClick={() => forward && onChange(forward)}
      >
        →
      </button>
    </div>
  );
}
