import { Card } from '../../../components/Card.tsx';
import { IntervalBar } from '../../../components/charts/IntervalBar.tsx';
import type { Comparison } from './data.ts';

/** p as people read it: two significant digits, "< 0.001" below that. */
export const formatP = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${Number(p.toPrecision(2))}`);

/** The verdict in words, first; then p, and the difference with its interval. */
export function VerdictCard({ verdict, comparison }: { verdict: string; comparison: Comparison | null }) {
  return (
    <Card title="Verdict">
      <p className="verdict" data-testid="verdict">
        {verdict.charAt(0).toUpperCase() + verdict.slice(1)}
      </p>
      {comparison && (
        <>
          <p className="verdict-p">
            <strong data-testid="p-value">{formatP(comparison.p)}</strong>{' '}
            <span className="muted">
              ({comparison.test}, {comparison.b} against {comparison.a}; below 0.05 is a clear difference)
            </span>
          </p>
          <IntervalBar
            a={comparison.a}
            b={comparison.b}
            difference={comparison.difference}
            low={comparison.interval.low}
            high={comparison.interval.high}
          />
        </>
      )}
    </Card>
  );
}
