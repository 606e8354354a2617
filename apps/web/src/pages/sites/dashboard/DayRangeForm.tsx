import { type FormEvent, type ReactNode, useState } from 'react';

interface DayRangeFormProps {
  /** The form's name; its two inputs are `<name>From`-style names given in `fields`. */
  name: string;
  ariaLabel?: string;
  fields: { from: string; to: string };
  labels: { from: string; to: string };
  initial: { from: string; to: string };
  /** The latest day either input may hold. */
  latest?: string;
  submitLabel: string;
  /** Whether Apply stays disabled while the days are the initial ones. */
  onlyWhenChanged?: boolean;
  onSubmit: (from: string, to: string) => void;
  children?: ReactNode;
}

/** Two day inputs and a submit button: nothing changes (or loads) until submitted. */
export function DayRangeForm(props: DayRangeFormProps) {
  const { initial, latest } = props;
  const [start, setStart] = useState(initial.from);
  const [end, setEnd] = useState(initial.to);
  const unchanged = props.onlyWhenChanged === true && start === initial.from && end === initial.to;
  const invalid = !start || !end || start > end || (latest !== undefined && end > latest);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid) props.onSubmit(start, end);
  };
  return (
    <form className="dash-custom" name={props.name} onSubmit={submit} aria-label={props.ariaLabel}>
      <label>
        <span className="dash-control-label">{props.labels.from}</span>
        <input
          type="date"
          name={props.fields.from}
          className="dash-select"
          value={start}
          max={end || latest}
          required
          onChange={(e) => setStart(e.target.value)}
        />
      </label>
      <label>
        <span className="dash-control-label">{props.labels.to}</span>
        <input
          type="date"
          name={props.fields.to}
          className="dash-select"
          value={end}
          min={start || undefined}
          max={latest}
          required
          onChange={(e) => setEnd(e.target.value)}
        />
      </label>
      <button type="submit" className="button button-secondary button-small" disabled={invalid || unchanged}>
        {props.submitLabel}
      </button>
      {props.children}
    </form>
  );
}
