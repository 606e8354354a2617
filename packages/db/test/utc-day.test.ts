import { describe, expect, it } from 'vitest';
import { utcDay } from '../src/analytics/db.ts';

describe('utcDay', () => {
  it('turns at midnight UTC exactly, for times and dates, going forwards and back', () => {
    const midnight = Date.parse('2026-03-02T00:00:00.000Z');
    expect(utcDay(midnight - 1)).toBe('2026-03-01');
    expect(utcDay(midnight)).toBe('2026-03-02');
    expect(utcDay(new Date(midnight - 1))).toBe('2026-03-01');
    expect(utcDay(midnight + 86_400_000 - 1)).toBe('2026-03-02');
    expect(utcDay(midnight + 86_400_000)).toBe('2026-03-03');
    expect(utcDay(Date.parse('1999-12-31T23:59:59.999Z'))).toBe('1999-12-31');
    expect(utcDay(midnight)).toBe('2026-03-02');
  });

  it('refuses an invalid time as toISOString does, and answers the next valid one', () => {
    expect(() => utcDay(new Date(Number.NaN))).toThrow(RangeError);
    expect(utcDay(Date.parse('2026-07-04T12:00:00Z'))).toBe('2026-07-04');
  });
});
