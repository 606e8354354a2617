import { RESULTS_LIMITS } from '@us/shared';
import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../../src/features/results/verdict.ts';

const compared = (p: number) => ({ a: 'a', b: 'b', rateA: 0.1, rateB: 0.12, p });

describe('the experiment verdict in words', () => {
  // The fault: p = 0.0496 is significant, and two significant digits wrote it "p = 0.05", the level itself.
  it('never writes a significant p as the level or above it', () => {
    expect(RESULTS_LIMITS.alpha).toBe(0.05);
    expect(verdictOf({ goal: true, compared: compared(0.0496) })).toBe('b converts better than a (12.0 % vs 10.0 %), p < 0.05');
    expect(verdictOf({ goal: true, compared: compared(0.031) })).toBe('b converts better than a (12.0 % vs 10.0 %), p = 0.031');
    expect(verdictOf({ goal: true, compared: compared(0.0004) })).toBe('b converts better than a (12.0 % vs 10.0 %), p < 0.001');
    expect(verdictOf({ goal: true, compared: compared(0.05) })).toBe(
      'no clear difference yet between a and b (p = 0.05): keep the experiment running',
    );
  });
});
