const LABELS: Record<number, string> = { 1: 'Today', 7: 'Last 7 days', 30: 'Last 30 days', 90: 'Last 90 days' };

/** The days a report covers, in the site's time zone. */
export function DaysPicker({
  id,
  days,
  onChange,
  choices = [1, 7, 30, 90],
}: {
  id: string;
  days: number;
  onChange: (days: number) => void;
  choices?: readonly number[];
}) {
  return (
    <span className="dash-range">
      <label htmlFor={id} className="dash-control-label">
        Period
      </label>
      <select id={id} className="dash-select" value={days} onChange={(e) => onChange(Number(e.target.value))}>
        {choices.map((d) => (
          <option key={d} value={d}>
            {LABELS[d] ?? `Last ${d} days`}
          </option>
        ))}
      </select>
    </span>
  );
}
