import { describe, expect, it } from 'vitest';
import { LightestFirst } from '../../src/core/hot/lightest-first.ts';

describe('LightestFirst', () => {
  it('always gives up the lightest member, through adds, weight changes and removals (against a plain list)', () => {
    const heap = new LightestFirst();
    const plain = new Map<string, number>();
    // A fixed pseudo-random sequence: the same run every time.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 5000; step++) {
      const member = `m${next(200)}`;
      const op = next(10);
      if (op < 6) {
        const weight = next(50);
        heap.set(member, weight);
        plain.set(member, weight);
      } else if (op < 8) {
        heap.delete(member);
        plain.delete(member);
      } else {
        const gone = heap.popLightest();
        if (plain.size === 0) {
          expect(gone).toBeUndefined();
          continue;
        }
        const least = Math.min(...plain.values());
        expect(plain.get(gone as string)).toBe(least);
        plain.delete(gone as string);
      }
      expect(heap.size).toBe(plain.size);
      expect(heap.has(member)).toBe(plain.has(member));
    }
  });
});
