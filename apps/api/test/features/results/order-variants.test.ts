import { RESULTS_LIMITS } from '@us/shared';
import { describe, expect, it } from 'vitest';
import { orderVariants } from '../../../src/features/results/experiment-results.ts';

const row = (variant: string, sessions: number) => ({ variant, sessions, converted: 0, events: 0, mixed: 0 });

describe('orderVariants', () => {
  it('lists the declared variants in order, seen or not, then undeclared ones by name', () => {
    expect(orderVariants(['control', 'new'], [row('zeta', 3), row('new', 9), row('alpha', 1)]).map((r) => r.variant)).toEqual([
      'control',
      'new',
      'alpha',
      'zeta',
    ]);
  });

  // The attack: pages choose any variant name; a stream of made-up ones grew every answer without bound.
  it(`lists at most ${RESULTS_LIMITS.undeclaredVariants} undeclared variants, those with the most sessions`, () => {
    const junk = Array.from({ length: 500 }, (_, i) => row(`junk-${String(i).padStart(3, '0')}`, 1));
    const real = Array.from({ length: RESULTS_LIMITS.undeclaredVariants }, (_, i) => row(`real-${i}`, 100 + i));
    const ordered = orderVariants(['control'], [...junk, row('control', 50), ...real]);
    expect(ordered).toHaveLength(1 + RESULTS_LIMITS.undeclaredVariants);
    expect(ordered[0]?.variant).toBe('control');
    expect(new Set(ordered.slice(1).map((r) => r.variant))).toEqual(new Set(real.map((r) => r.variant)));
  });
});
