const CHOICES = [
  { days: 1, label: 'Today' },
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
];

/** The days a report covers, in the site's time zone. */
export function DaysPicker({ id, days, onChange }: { id: string; days: number; onChange: (days: number) => void }) {
  return (
    <span className="dash-range">
      <label htmlFor={id} className="dash-control-label">
        Period
      </label>
      <select id={id} className="dash-select" value={days} onChange={(e) => onChange(Number(e.target.value))}>
        {CHOICES.map((c) => (
          <option key={c.days} value={c.days}>
            {c.label}
          </option>
        ))}
      </select>
    </span>
  );
}
