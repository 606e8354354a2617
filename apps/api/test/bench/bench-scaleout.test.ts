// The scale-out section prints Citus's figures as ratios of one PostgreSQL's (always Citus over PostgreSQL, with
// words saying whether that is better or worse for the kind of figure), over sites of which one is large.
import { describe, expect, it } from 'vitest';
import { siteShares } from '../../bench/scaleout-data.ts';
import { formatVersus, versusRatio } from '../../bench/scaleout-format.ts';

describe('scale-out ratios', () => {
  it('calls more rows per second on Citus more, and fewer less', () => {
    expect(versusRatio({ postgres: 40_000, citus: 60_000, better: 'higher' })).toEqual({ ratio: 1.5, verdict: '1.50× more' });
    expect(versusRatio({ postgres: 40_000, citus: 20_000, better: 'higher' })).toEqual({ ratio: 0.5, verdict: '2.00× less' });
  });

  it('calls a longer time on Citus slower, and a shorter one faster', () => {
    expect(versusRatio({ postgres: 10, citus: 25, better: 'lower' })).toEqual({ ratio: 2.5, verdict: '2.50× slower' });
    expect(versusRatio({ postgres: 10, citus: 4, better: 'lower' })).toEqual({ ratio: 0.4, verdict: '2.50× faster' });
  });

  it('does not call a difference within 5 % either way', () => {
    expect(versusRatio({ postgres: 100, citus: 103, better: 'lower' }).verdict).toBe('about the same');
    expect(versusRatio({ postgres: 100, citus: 96, better: 'higher' }).verdict).toBe('about the same');
  });

  it('says so when the baseline is zero rather than printing infinity as a verdict', () => {
    expect(versusRatio({ postgres: 0, citus: 5, better: 'lower' }).verdict).toBe('no ratio');
  });

  it('prints both figures, the ratio and the verdict on one line', () => {
    const line = formatVersus({ name: 'ingest path', unit: 'rows/s', postgres: 41_234.4, citus: 20_617.2, better: 'higher' });
    expect(line).toMatch(/^ingest path\s+41,234\s+20,617 rows\/s\s+0\.50 \(2\.00× less\)$/);
    const ms = formatVersus({ name: 'dashboard p50', unit: 'ms', postgres: 37, citus: 81.44, better: 'lower', note: '20 runs' });
    expect(ms).toMatch(/37\.0\s+81\.4 ms\s+2\.20 \(2\.20× slower\) {3}20 runs$/);
  });
});

describe('scale-out sites', () => {
  it('gives the first site 30 % of the pageviews and the others even shares of the rest', () => {
    const shares = siteShares(2_500_000, 200);
    expect(shares).toHaveLength(200);
    expect(shares[0]).toBe(750_000);
    expect(new Set(shares.slice(1))).toEqual(new Set([8_793]));
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2_500_000);
  });
});
