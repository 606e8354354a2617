import { DayRangeForm } from './DayRangeForm.tsx';

/** Two day inputs and Apply: the range changes (and loads) only when applied. */
export function CustomRange({ from, to, onApply }: { from: string; to: string; onApply: (from: string, to: string) => void }) {
  return (
    <DayRangeForm
      name="customRange"
      fields={{ from: 'from', to: 'to' }}
      labels={{ from: 'From', to: 'To' }}
      initial={{ from, to }}
      submitLabel="Apply"
      onlyWhenChanged
      onSubmit={onApply}
    />
  );
}
