import { useId } from 'react';
import { formatChange } from '../../../lib/format.ts';
import type { MeasureItem } from './measures.ts';

const ARROWS = { up: '▲', down: '▼', same: '→' } as const;

/** One headline figure: its value and, when comparing, the change coloured by whether it is good. */
export function MeasureCard({ item, compare, previousPeriod }: { item: MeasureItem; compare: boolean; previousPeriod: string }) {
  const id = useId();
  const { measure, format } = item;
  const previous = measure.previous;
  const direction = measure.change === null ? null : measure.change > 0 ? 'up' : measure.change < 0 ? 'down' : 'same';
  const title = previous === null ? undefined : `${previousPeriod}: ${format(previous)}`;
  return (
    <li className={`dash-measure dash-tone-${compare ? measure.tone : 'flat'}`} aria-labelledby={id} title={item.hint}>
      <span className="dash-measure-label" id={id}>
        {item.label}
      </span>
      <span className="dash-measure-value">{format(measure.value)}</span>
      {compare && previous !== null && (
        <span className="dash-measure-change" title={title}>
          {direction ? (
            <>
              <span aria-hidden="true">{ARROWS[direction]}</span> {formatChange(measure.change ?? 0)}
            </>
          ) : measure.value > 0 ? (
            'new'
          ) : (
            '—'
          )}
          <span className="site-visually-hidden"> on the previous period ({title})</span>
        </span>
      )}
    </li>
  );
}
