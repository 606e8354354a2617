import { formatCount, formatPercent } from '../../../lib/format.ts';
import type { VariantResult } from './data.ts';

/** The variants side by side: sessions shown, sessions converted and the rate (none under 5 sessions). */
export function VariantCards({ variants, goalName }: { variants: VariantResult[]; goalName: string | null }) {
  if (variants.length === 0) {
    return <p className="site-none">No sessions were shown a variant in this period: check the page’s data-exp attribute.</p>;
  }
  return (
    <ul className="variant-cards" aria-label="Variants">
      {variants.map((v) => (
        <li key={v.variant} className="variant-card" aria-label={`Variant ${v.variant}`} data-variant={v.variant}>
          <h3>{v.variant}</h3>
          {v.enough ? (
            <dl className="variant-figures">
              <dt>Sessions</dt>
              <dd>{v.sessions === null ? '—' : formatCount(v.sessions)}</dd>
              <dt>{goalName ? `Reached ${goalName}` : 'Converted'}</dt>
              <dd>{v.converted === null ? '—' : formatCount(v.converted)}</dd>
              <dt>Rate</dt>
              <dd className="variant-rate">{v.rate === null ? '—' : formatPercent(v.rate)}</dd>
              <dt>Events sent</dt>
              <dd>{v.events === null ? '—' : formatCount(v.events)}</dd>
            </dl>
          ) : (
            <p className="muted variant-few">Fewer than 5 sessions — not shown yet.</p>
          )}
        </li>
      ))}
    </ul>
  );
}
