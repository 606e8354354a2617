import { useState } from 'react';
import { CompareRange } from './CompareRange.tsx';
import { CompareToggle } from './CompareToggle.tsx';
import type { Choices } from './choices.ts';
import { IntervalPicker } from './IntervalPicker.tsx';
import { LaneSwitcher } from './LaneSwitcher.tsx';
import { PeriodStepper } from './PeriodStepper.tsx';
import { RangePicker } from './RangePicker.tsx';
import { ShortcutsHelp } from './ShortcutsHelp.tsx';
import { useShortcuts } from './shortcuts.ts';

/** The bar of choices above the figures; every choice lands in the address, and the keyboard shortcuts change them too. */
export function DashboardControls({ choices, onChange }: { choices: Choices; onChange: (patch: Partial<Choices>) => void }) {
  const [help, setHelp] = useState(false);
  useShortcuts(choices, onChange, () => setHelp((open) => !open));
  return (
    <div className="dash-controls">
      <LaneSwitcher value={choices.lane} onChange={(lane) => onChange({ lane })} />
      <PeriodStepper choices={choices} onChange={onChange} />
      <RangePicker choices={choices} onChange={onChange} />
      <IntervalPicker choices={choices} onChange={onChange} />
      <CompareToggle
        value={choices.compare}
        custom={choices.compareFrom !== null}
        onChange={(compare) => onChange({ compare })}
      />
      {choices.compare && <CompareRange key={choices.range + (choices.from ?? '')} choices={choices} onChange={onChange} />}
      <ShortcutsHelp open={help} onToggle={setHelp} />
    </div>
  );
}
