import { CompareToggle } from './CompareToggle.tsx';
import type { Choices } from './choices.ts';
import { LaneSwitcher } from './LaneSwitcher.tsx';
import { RangePicker } from './RangePicker.tsx';

/** The bar of choices above the figures; every choice lands in the address. */
export function DashboardControls({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  return (
    <div className="dash-controls">
      <LaneSwitcher value={choices.lane} onChange={(lane) => onChange({ lane })} />
      <RangePicker choices={choices} onChange={onChange} />
      <CompareToggle value={choices.compare} onChange={(compare) => onChange({ compare })} />
    </div>
  );
}
