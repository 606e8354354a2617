import { describe, expect, it } from 'vitest';
import { hoursOf, isDay, localToday, previousRange, rawStartOf, resolveRange, splitRange } from '../../../src/analytics/range.ts';
import { AppError } from '../../../src/core/errors.ts';
import { planFigures, rollupFit, splitDays } from '../../../src/features/stats/planner.ts';
import type { Question } from '../../../src/features/stats/question.ts';

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e.field;
    throw e;
  }
  return null;
};

describe('stats days', () => {
  it('knows real calendar days', () => {
    expect(isDay('2026-02-28')).toBe(true);
    expect(isDay('2028-02-29')).toBe(true);
    expect(isDay('2026-02-29')).toBe(false);
    expect(isDay('2026-13-01')).toBe(false);
    expect(isDay('26-01-01')).toBe(false);
  });

  it('knows days only from 1970 to 2199: a day past 9999-12-31 has no four-digit year, and ranges loop on it', () => {
    expect(isDay('1970-01-01')).toBe(true);
    expect(isDay('2199-12-31')).toBe(true);
    expect(isDay('1969-12-31')).toBe(false);
    expect(isDay('2200-01-01')).toBe(false);
    expect(isDay('9999-12-31')).toBe(false);
    const today = '2026-03-10';
    expect(fieldOf(() => resolveRange({ from: '9999-12-30', to: '9999-12-31' }, today))).toBe('from');
    expect(fieldOf(() => resolveRange({ from: '2026-03-01', to: '9999-12-31' }, today))).toBe('to');
    expect(fieldOf(() => resolveRange({ from: '0001-01-01', to: '0001-01-02' }, today))).toBe('from');
  });

  it('takes today in the site zone', () => {
    const at = new Date('2026-03-10T03:00:00Z');
    expect(localToday('UTC', at)).toBe('2026-03-10');
    expect(localToday('America/New_York', at)).toBe('2026-03-09');
    expect(localToday('Pacific/Kiritimati', new Date('2026-03-10T11:00:00Z'))).toBe('2026-03-11');
  });

  it('resolves days and from/to, refusing bad combinations with a field', () => {
    const today = '2026-03-10';
    expect(resolveRange({}, today)).toEqual({ from: '2026-03-04', to: today });
    expect(resolveRange({ days: 1 }, today)).toEqual({ from: today, to: today });
    expect(resolveRange({ from: '2026-03-01' }, today)).toEqual({ from: '2026-03-01', to: today });
    expect(fieldOf(() => resolveRange({ days: 2, to: '2026-03-01' }, today))).toBe('days');
    expect(fieldOf(() => resolveRange({ to: '2026-03-01' }, today))).toBe('from');
    expect(fieldOf(() => resolveRange({ from: '2026-03-05', to: '2026-03-01' }, today))).toBe('to');
    expect(fieldOf(() => resolveRange({ from: '2026-03-11' }, today))).toBe('from');
    expect(fieldOf(() => resolveRange({ from: '2026-03-01', to: '2026-03-32' }, today))).toBe('to');
  });

  it('compares a single day with the same weekday a week earlier, else the days right before', () => {
    expect(previousRange({ from: '2026-03-10', to: '2026-03-10' })).toEqual({ from: '2026-03-03', to: '2026-03-03' });
    expect(previousRange({ from: '2026-03-01', to: '2026-03-07' })).toEqual({ from: '2026-02-22', to: '2026-02-28' });
  });

  it('splits a range at the 90-day line', () => {
    const rawStart = rawStartOf('2026-06-30');
    expect(rawStart).toBe('2026-04-01');
    expect(splitRange({ from: '2026-03-30', to: '2026-04-02' }, rawStart)).toEqual({
      rollup: { from: '2026-03-30', to: '2026-03-31' },
      raw: { from: '2026-04-01', to: '2026-04-02' },
    });
    expect(splitRange({ from: '2026-04-05', to: '2026-04-06' }, rawStart)).toEqual({
      rollup: null,
      raw: { from: '2026-04-05', to: '2026-04-06' },
    });
    expect(splitRange({ from: '2026-01-01', to: '2026-01-02' }, rawStart).raw).toBeNull();
  });

  it('lists local hours', () => {
    const hours = hoursOf({ from: '2026-03-10', to: '2026-03-11' });
    expect(hours).toHaveLength(48);
    expect(hours[0]).toBe('2026-03-10T00:00');
    expect(hours[47]).toBe('2026-03-11T23:00');
  });

  it('allows one dimension besides day in a rollup answer, and says which filter is one too many', () => {
    expect(rollupFit('pageviews', null, {})).toEqual({ ok: true, dimension: '' });
    expect(rollupFit('pageviews', 'day', { country: 'DE' })).toEqual({ ok: true, dimension: 'country' });
    expect(rollupFit('pageviews', 'country', { country: 'DE' })).toEqual({ ok: true, dimension: 'country' });
    // Pairs kept in rollups, named in alphabetical order whichever side is asked.
    expect(rollupFit('pageviews', 'page', { country: 'DE' })).toEqual({ ok: true, dimension: 'country|page' });
    expect(rollupFit('sessions', 'country', { page: '/' })).toEqual({ ok: true, dimension: 'country|page' });
    expect(rollupFit('pageviews', null, { country: 'DE', device: 'mobile' })).toEqual({ ok: true, dimension: 'country|device' });
    expect(rollupFit('pageviews', 'page', { country: 'DE', page: '/' })).toEqual({ ok: true, dimension: 'country|page' });
    // Not kept: a pair outside ROLLUP_PAIRS, a third dimension, or any pair of events.
    expect(rollupFit('pageviews', 'language', { country: 'DE' })).toMatchObject({ ok: false, field: 'where.country' });
    expect(rollupFit('pageviews', 'page', { country: 'DE', device: 'mobile' })).toMatchObject({
      ok: false,
      field: 'where.device',
    });
    expect(rollupFit('events', 'event', { country: 'DE' })).toMatchObject({ ok: false, field: 'where.country' });
  });
  it('answers a custom property over old days only for a kept key, as one dimension of its own', () => {
    const rawStart = '2026-01-01';
    const old = { from: '2025-12-01', to: '2026-01-10' };
    const qn = (by: string | null, where: Record<string, string>, range = old): Question => ({
      metrics: 'pageviews',
      by,
      lane: 'human',
      range,
      where,
      sort: 'pageviews',
      limit: 10,
    });
    // Not kept: refused at the field naming it, saying where to keep it.
    const unkept = planFigures(qn('prop:plan', {}), rawStart, ['Team size']);
    expect(unkept).toMatchObject({ ok: false, field: 'by' });
    expect(unkept.ok === false && unkept.reason).toContain('keptProperties');
    expect(planFigures(qn(null, { 'prop:Team size': 'small', country: 'DE' }), rawStart, [])).toMatchObject({
      ok: false,
      field: 'where.prop:Team size',
    });
    // Kept: read from the key's rollup rows, by it or filtered by it.
    expect(planFigures(qn('prop:plan', {}), rawStart, ['plan'])).toMatchObject({
      ok: true,
      rollups: { groups: 'prop:plan', totals: '' },
    });
    expect(planFigures(qn('day', { 'prop:plan': 'pro' }), rawStart, ['plan'])).toMatchObject({
      ok: true,
      rollups: { groups: 'prop:plan', totals: 'prop:plan' },
    });
    // Beside another dimension it is no kept pair: only within the raw days.
    expect(planFigures(qn('page', { 'prop:plan': 'pro' }), rawStart, ['plan'])).toMatchObject({
      ok: false,
      field: 'where.prop:plan',
    });
    // Recent days only: any key, from rolled-up days holding it or raw rows.
    const recent = { from: '2026-02-01', to: '2026-02-10' };
    expect(planFigures(qn('prop:plan', {}, recent), rawStart, [])).toMatchObject({ ok: true, recentFromRollups: true });
    // The summary's filter reads properties from raw rows.
    expect(rollupFit('pageviews', null, { 'prop:plan': 'pro' })).toMatchObject({ ok: false, field: 'where.prop:plan' });
  });
  it('moves rolled-up recent days to rollups; a partly rolled-up day is read from both', () => {
    const rawStart = '2026-01-01';
    const range = { from: '2026-03-01', to: '2026-03-10' };
    expect(splitDays(range, rawStart, { complete: null, partial: null })).toEqual({ rollup: null, raw: range });
    expect(splitDays(range, rawStart, { complete: '2026-03-04', partial: null })).toEqual({
      rollup: { from: '2026-03-01', to: '2026-03-04' },
      raw: { from: '2026-03-05', to: '2026-03-10' },
    });
    expect(
      splitDays(range, rawStart, { complete: '2026-03-09', partial: { day: '2026-03-10', until: '2026-03-10T14:00:00Z' } }),
    ).toEqual({
      rollup: { from: '2026-03-01', to: '2026-03-10' },
      raw: { from: '2026-03-10', to: '2026-03-10', after: '2026-03-10T14:00:00Z' },
    });
    // Every day rolled up completely: nothing raw.
    expect(splitDays(range, rawStart, { complete: '2026-03-10', partial: null }).raw).toBeNull();
  });
});
