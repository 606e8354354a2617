import { describe, expect, it } from 'vitest';
import { mondayOf, monthsOf, seriesKeys, weeksOf } from '../../src/analytics/time-buckets.ts';

describe('series buckets', () => {
  it('the Monday of an ISO week (2024-04-29 is a Monday)', () => {
    expect(mondayOf('2024-04-29')).toBe('2024-04-29');
    expect(mondayOf('2024-05-05')).toBe('2024-04-29'); // Sunday ends the week
    expect(mondayOf('2025-01-01')).toBe('2024-12-30'); // across a year
  });

  it('weeks a range touches, the first Monday maybe before it', () => {
    expect(weeksOf({ from: '2024-05-01', to: '2024-05-13' })).toEqual(['2024-04-29', '2024-05-06', '2024-05-13']);
    expect(weeksOf({ from: '2024-05-05', to: '2024-05-05' })).toEqual(['2024-04-29']);
  });

  it('months a range touches, across a year', () => {
    expect(monthsOf({ from: '2024-11-30', to: '2025-02-01' })).toEqual(['2024-11', '2024-12', '2025-01', '2025-02']);
    expect(monthsOf({ from: '2024-02-10', to: '2024-02-20' })).toEqual(['2024-02']);
  });

  it('only times have buckets', () => {
    expect(seriesKeys('day', { from: '2024-02-28', to: '2024-03-01' })).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(seriesKeys('hour', { from: '2024-02-28', to: '2024-02-28' })).toHaveLength(24);
    expect(seriesKeys('country', { from: '2024-02-28', to: '2024-02-28' })).toBeNull();
  });
});
