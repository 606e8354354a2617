import { type Filters, NO_VALUE } from './choices.ts';
import { valueLabel } from './topValues.ts';

/** How a filter reads: "Country is Germany (DE)". */
export function filterText(dimension: string, value: string, labels: Record<string, string> | undefined): string {
  const name = labels?.[dimension] ?? dimension.replace(/_/g, ' ');
  return `${name} is ${valueLabel(dimension, value === NO_VALUE ? null : value)}`;
}

/** The filters in force, each removable; they also live in the address (`where.<dimension>`). */
export function FilterChips({
  filters,
  labels,
  onChange,
}: {
  filters: Filters;
  labels: Record<string, string> | undefined;
  onChange: (filters: Filters) => void;
}) {
  const entries = Object.entries(filters);
  if (entries.length === 0) return null;
  return (
    <ul className="dash-filters" aria-label="Filters">
      {entries.map(([dimension, value]) => {
        const text = filterText(dimension, value, labels);
        const rest = Object.fromEntries(entries.filter(([d]) => d !== dimension));
        return (
          <li key={dimension} className="dash-filter">
            <span>{text}</span>
            <button
              type="button"
              className="dash-filter-remove"
              aria-label={`Remove filter: ${text}`}
              onClick={() => onChange(rest)}
            >
              ×
            </button>
          </li>
        );
      })}
      {entries.length > 1 && (
        <li>
          <button type="button" className="button button-link button-small" onClick={() => onChange({})}>
            Clear filters
          </button>
        </li>
      )}
    </ul>
  );
}
