import { formatPeriod } from '../../../lib/format.ts';
import { MeasureCard } from './MeasureCard.tsx';
import type { MeasureItem } from './measures.ts';

/**
 * The row of headline figures. When no previous period can be shown, the reason is said once above
 * them rather than on every card.
 */
export function MeasureCards({
  items,
  compare,
  previous,
  reason,
}: {
  items: MeasureItem[];
  compare: boolean;
  previous: { from: string; to: string } | null;
  reason: string | null;
}) {
  const previousPeriod = previous ? `Previous period (${formatPeriod(previous.from, previous.to)})` : 'Previous period';
  return (
    <div className="dash-measures-wrap">
      {compare && reason && (
        <p className="dash-comparison-note" role="note">
          {reason}. Changes show once there is an earlier period to compare with.
        </p>
      )}
      <ul className="dash-measures" aria-label="Headline figures">
        {items.map((item) => (
          <MeasureCard key={item.key} item={item} compare={compare} previousPeriod={previousPeriod} />
        ))}
      </ul>
    </div>
  );
}
