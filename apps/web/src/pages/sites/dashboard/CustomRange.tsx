import { type FormEvent, useState } from 'react';

/** Two day inputs and Apply: the range changes (and loads) only when applied. */
export function CustomRange({ from, to, onApply }: { from: string; to: string; onApply: (from: string, to: string) => void }) {
  const [start, setStart] = useState(from);
  const [end, setEnd] = useState(to);
  const invalid = !start || !end || start > end;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid) onApply(start, end);
  };
  return (
    <form className="dash-custom" name="customRange" onSubmit={submit}>
      <label>
        <span className="dash-control-label">From</span>
        <input
          type="date"
          name="from"
          className="dash-select"
          value={start}
          max={end || undefined}
          required
          onChange={(e) => setStart(e.target.value)}
        />
      </label>
      <label>
        <span className="dash-control-label">To</span>
        <input
          type="date"
          name="to"
          className="dash-select"
          value={end}
          min={start || undefined}
          required
          onChange={(e) => setEnd(e.target.value)}
        />
      </label>
      <button type="submit" className="button button-secondary button-small" disabled={invalid || (start === from && end === to)}>
        Apply
      </button>
    </form>
  );
}
