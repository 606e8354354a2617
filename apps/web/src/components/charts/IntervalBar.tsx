import { formatPointsChange } from '../../lib/format.ts';
import { useElementWidth } from './useElementWidth.ts';

const HEIGHT = 64;
const M = { left: 16, right: 16 };

/**
 * The difference of rates (b − a) with its 95 % interval as a bar from low to high on an axis around
 * zero; the image's name says the same in words, and the figures are written under it.
 */
export function IntervalBar({
  a,
  b,
  difference,
  low,
  high,
}: {
  a: string;
  b: string;
  difference: number;
  low: number;
  high: number;
}) {
  const [wrap, width] = useElementWidth<HTMLDivElement>(480);
  const reach = Math.max(1, Math.abs(low), Math.abs(high), Math.abs(difference)) * 1.15;
  const plotW = width - M.left - M.right;
  const x = (v: number) => M.left + ((v + reach) / (2 * reach)) * plotW;
  const crossesZero = low <= 0 && high >= 0;
  const text = `Difference ${b} − ${a}: ${formatPointsChange(difference)}, 95 % interval ${formatPointsChange(low)} to ${formatPointsChange(high)}${
    crossesZero ? ' (includes zero)' : ''
  }`;
  return (
    <figure className="interval">
      <div ref={wrap}>
        <svg
          className="interval-svg"
          width={width}
          height={HEIGHT}
          viewBox={`0 0 ${width} ${HEIGHT}`}
          role="img"
          aria-label={text}
        >
          <line className="interval-axis" x1={M.left} x2={width - M.right} y1={28} y2={28} />
          <line className="interval-zero" x1={x(0)} x2={x(0)} y1={8} y2={48} />
          <text className="interval-tick" x={x(0)} y={62} textAnchor="middle">
            0
          </text>
          <rect
            className={`interval-bar ${crossesZero ? 'interval-unclear' : difference > 0 ? 'interval-up' : 'interval-down'}`}
            x={x(low)}
            y={20}
            width={Math.max(2, x(high) - x(low))}
            height={16}
            rx={3}
            data-low={low}
            data-high={high}
          />
          <circle className="interval-point" cx={x(difference)} cy={28} r={5} />
        </svg>
      </div>
      <figcaption>{text}</figcaption>
    </figure>
  );
}
