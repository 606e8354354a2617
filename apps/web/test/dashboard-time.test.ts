import { describe, expect, it } from 'vitest';
import {
  choicesToParams,
  DEFAULT_CHOICES,
  intervalOfChoices,
  parseChoices,
  rangeFields,
} from '../src/pages/sites/dashboard/choices.ts';
import { defaultInterval, fits, intervalOf, stepped, todayIn } from '../src/pages/sites/dashboard/period.ts';
import { customDayAgo } from '../src/pages/sites/dashboard/RangePicker.tsx';
import { shortcutPatch } from '../src/pages/sites/dashboard/shortcuts.ts';

const TODAY = '2026-11-28';

describe('dashboard time: intervals, stepping, shortcuts', () => {
  it('offers hours up to 2 days, weeks from 14, months from 60; defaults by length', () => {
    expect([1, 2, 3].map((n) => fits('hour', n))).toEqual([true, true, false]);
    expect([13, 14].map((n) => fits('week', n))).toEqual([false, true]);
    expect([59, 60].map((n) => fits('month', n))).toEqual([false, true]);
    expect([1, 7, 90, 365, 1000].map((n) => defaultInterval(n))).toEqual(['hour', 'day', 'day', 'week', 'month']);
    expect(intervalOf('month', 7)).toBe('day'); // a choice that does not fit falls back
    expect(intervalOf('day', 1)).toBe('day');
    // Hours are kept for the last 90 days only: an old day is one point.
    expect(fits('hour', 1, true)).toBe(false);
    expect(intervalOf('hour', 1, true)).toBe('day');
    const old = parseChoices('?range=custom&from=2026-01-05&to=2026-01-05');
    expect(intervalOfChoices({ ...old, today: TODAY })).toBe('day');
    expect(intervalOfChoices({ ...old, from: '2026-11-20', to: '2026-11-20', today: TODAY })).toBe('hour');
  });

  it('steps by the period’s length, never past today', () => {
    expect(stepped({ from: '2026-11-22', to: TODAY }, -1, TODAY)).toEqual({ from: '2026-11-15', to: '2026-11-21' });
    expect(stepped({ from: '2026-11-22', to: TODAY }, 1, TODAY)).toBeNull();
    expect(stepped({ from: '2026-11-20', to: '2026-11-26' }, 1, TODAY)).toEqual({ from: '2026-11-22', to: TODAY });
    expect(stepped({ from: '2026-11-27', to: '2026-11-27' }, 1, TODAY)).toEqual({ from: TODAY, to: TODAY });
  });

  it('yesterday is the site’s day before today; interval and the comparison range live in the address', () => {
    const c = parseChoices('?range=yesterday&interval=hour&compareFrom=2025-11-27&compareTo=2025-11-27');
    expect(rangeFields({ ...c, today: TODAY })).toEqual({ from: '2026-11-27', to: '2026-11-27' });
    expect([c.interval, c.compareFrom, c.compareTo]).toEqual(['hour', '2025-11-27', '2025-11-27']);
    expect(choicesToParams(c).toString()).toBe('range=yesterday&compareFrom=2025-11-27&compareTo=2025-11-27&interval=hour');
    expect(parseChoices('?compare=0&compareFrom=2025-11-27').compareFrom).toBeNull();
    expect(parseChoices('?interval=fortnight').interval).toBeNull();
    expect(todayIn('Pacific/Kiritimati', new Date('2026-11-28T11:00:00Z'))).toBe('2026-11-29');
  });

  it('keys: T, Y, W, M pick ranges, arrows step, C toggles compare, Escape clears filters', () => {
    const c = { ...DEFAULT_CHOICES, today: TODAY };
    expect(shortcutPatch('t', c)).toEqual({ range: 'today' });
    expect(shortcutPatch('Y', c)).toEqual({ range: 'yesterday' });
    expect(shortcutPatch('w', c)).toEqual({ range: '7d' });
    expect(shortcutPatch('m', c)).toEqual({ range: '30d' });
    expect(shortcutPatch('ArrowLeft', c)).toEqual({ range: 'custom', from: '2026-11-15', to: '2026-11-21' });
    expect(shortcutPatch('ArrowRight', c)).toBeNull();
    expect(shortcutPatch('c', c)).toEqual({ compare: false });
    expect(shortcutPatch('Escape', c)).toBeNull();
    expect(shortcutPatch('Escape', { ...c, filters: { country: 'DE' } })).toEqual({ filters: {} });
    expect(shortcutPatch('x', c)).toBeNull();
  });
});

describe('a custom range starts from the site’s today', () => {
  it('counts the last 7 days back from the site’s day, not the browser’s', () => {
    // A site in Auckland is already on the 3rd while a browser in Europe is still on the 2nd.
    expect(customDayAgo({ today: '2026-12-03' }, 0)).toBe('2026-12-03');
    expect(customDayAgo({ today: '2026-12-03' }, 6)).toBe('2026-11-27');
    expect(customDayAgo({ today: '2026-03-01' }, 6)).toBe('2026-02-23');
  });
});
