import { describe, expect, it } from 'vitest';
import { splitUtcDays } from '../../../src/analytics/day-store/days.ts';
import { addDays } from '../../../src/analytics/range.ts';

describe('splitUtcDays', () => {
  const now = Date.parse('2026-11-30T15:00:00Z');

  it('splits a local range into UTC days wholly inside it and the days at its edges', () => {
    expect(splitUtcDays({ from: '2026-11-20', to: '2026-11-22' }, 'UTC', undefined, now)).toEqual({
      stored: ['2026-11-20', '2026-11-21', '2026-11-22'],
      raw: ['2026-11-19', '2026-11-23'],
    });
    // Berlin's local days each touch two UTC days: only the middle one lies wholly inside.
    expect(splitUtcDays({ from: '2026-11-20', to: '2026-11-22' }, 'Europe/Berlin', undefined, now)).toEqual({
      stored: ['2026-11-20', '2026-11-21'],
      raw: ['2026-11-19', '2026-11-22', '2026-11-23'],
    });
  });

  // The attack: a question reaching ten years ahead was 3,660 days split on the event loop, two zone conversions
  // each (half a second a question, 40 a batch).
  it('stops the day after tomorrow: no later day holds rows', () => {
    const split = splitUtcDays({ from: '2026-11-29', to: addDays('2026-11-29', 3659) }, 'Europe/Berlin', undefined, now);
    expect([...split.stored, ...split.raw].sort()).toEqual([
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
      '2026-12-02',
    ]);
  });
});
