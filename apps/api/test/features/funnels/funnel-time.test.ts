// The median of a funnel step's time histogram is what percentile_cont(0.5) gives over the same values,
// however the histogram was split across days.
import { describe, expect, it } from 'vitest';
import { addToHistogram, medianOf, type TimeHistogram } from '../../../src/features/funnels/funnel-time.ts';

const histogram = (pairs: [number, number][]): TimeHistogram => {
  const h: TimeHistogram = new Map();
  for (const [s, n] of pairs) addToHistogram(h, s, n);
  return h;
};

describe('medianOf', () => {
  it('is the middle value, or the mean of the two middle ones', () => {
    expect(
      medianOf(
        histogram([
          [1, 1],
          [2, 1],
          [3, 1],
        ]),
      ),
    ).toBe(2);
    expect(
      medianOf(
        histogram([
          [1, 1],
          [2, 1],
          [3, 1],
          [4, 1],
        ]),
      ),
    ).toBe(2.5);
    expect(
      medianOf(
        histogram([
          [10, 3],
          [20, 1],
        ]),
      ),
    ).toBe(10);
    expect(
      medianOf(
        histogram([
          [10, 2],
          [20, 2],
        ]),
      ),
    ).toBe(15);
  });

  it('merges days: counts of the same bucket add up, order of arrival does not matter', () => {
    const days = histogram([
      [60, 2],
      [5, 1],
      [60, 1],
      [600, 3],
      [5, 1],
    ]);
    expect(days.get(60)).toBe(3);
    // 5, 5, 60, 60, 60, 600, 600, 600: the middle two are 60 and 60.
    expect(medianOf(days)).toBe(60);
  });

  it('is null for no sessions', () => {
    expect(medianOf(new Map())).toBeNull();
    expect(medianOf(histogram([[30, 0]]))).toBeNull();
  });
});
