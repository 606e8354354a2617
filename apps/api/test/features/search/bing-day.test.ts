import { describe, expect, it } from 'vitest';
import { bingDay } from '../../../src/features/search/bing-weeks.ts';

// Bing Webmaster's dates come as `/Date(<ms since the epoch>)/` strings. One past JavaScript's dates threw a
// RangeError out of the whole connection's pull; it is now a row without a day, left out.
describe("Bing's dates", () => {
  it('reads a day, and no day from what is none', () => {
    expect(bingDay('/Date(1764460800000)/')).toBe('2025-11-30');
    expect(bingDay('/Date(1764460800000-0800)/')).toBe('2025-11-30');
    expect(bingDay('/Date(99999999999999999)/')).toBeNull();
    expect(bingDay('/Date(-99999999999999999)/')).toBeNull();
    expect(bingDay('2025-11-30')).toBeNull();
    expect(bingDay(null)).toBeNull();
  });
});
