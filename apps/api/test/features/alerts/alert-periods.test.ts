import { describe, expect, it } from 'vitest';
import { lastClosedPeriod } from '../../../src/features/alerts/periods.ts';

describe('the period an alert rule looks at', () => {
  it('is the last complete local hour, with the same hour of the four weeks before', () => {
    const p = lastClosedPeriod('hour', 'Asia/Tokyo', new Date('2026-11-30T05:20:00Z'));
    expect(p).toEqual({
      key: '2026-11-30T13:00',
      day: '2026-11-30',
      baselineKeys: ['2026-11-23T13:00', '2026-11-16T13:00', '2026-11-09T13:00', '2026-11-02T13:00'],
      once: true,
    });
    // Just after local midnight: the day before's last hour.
    expect(lastClosedPeriod('hour', 'Asia/Tokyo', new Date('2026-11-30T15:05:00Z')).key).toBe('2026-11-30T23:00');
  });

  // The defect: "the local hour minus one" named 02:00 on the night Berlin's clocks go from 02:00 to 03:00, an hour
  // that never was (counted 0: a false drop alert), and the hour 01:00–02:00 was never looked at.
  it('on the night clocks go forward, looks at the hour before the change, never at the hour skipped', () => {
    // 2027-03-28 01:00Z is 03:00 in Berlin (CEST): the hour that ended is 01:00–02:00 local (CET).
    expect(lastClosedPeriod('hour', 'Europe/Berlin', new Date('2027-03-28T01:05:00Z')).key).toBe('2027-03-28T01:00');
    expect(lastClosedPeriod('hour', 'Europe/Berlin', new Date('2027-03-28T02:05:00Z')).key).toBe('2027-03-28T03:00');
    const keys = ['00:05', '01:05', '02:05', '03:05'].map(
      (t) => lastClosedPeriod('hour', 'Europe/Berlin', new Date(`2027-03-28T${t}:00Z`)).key,
    );
    expect(keys).not.toContain('2027-03-28T02:00');
  });

  it('on the night clocks go back, names the hour that repeats once', () => {
    // 2026-10-25: 02:00–03:00 local happens twice (00:00Z CEST, then 01:00Z CET).
    const keys = ['01:05', '02:05'].map((t) => lastClosedPeriod('hour', 'Europe/Berlin', new Date(`2026-10-25T${t}:00Z`)).key);
    expect(keys).toEqual(['2026-10-25T02:00', '2026-10-25T02:00']);
  });

  // The defect: the weeks after a clock change held the skipped hour in their baseline (counted 0: the usual figure a
  // quarter low, ordinary traffic a spike) or the repeated one (two hours' figures: a false drop).
  it('leaves out of the usual figure the hour clocks skipped and the hour they repeated', () => {
    // A week after 2027-03-28, when Berlin skipped 02:00–03:00: 02:00 of 2027-04-04 is 00:00Z.
    const spring = lastClosedPeriod('hour', 'Europe/Berlin', new Date('2027-04-04T01:05:00Z'));
    expect(spring).toMatchObject({ key: '2027-04-04T02:00', once: true });
    expect(spring.baselineKeys).toEqual(['2027-03-21T02:00', '2027-03-14T02:00', '2027-03-07T02:00']);
    // A week after 2026-10-25, when 02:00–03:00 happened twice: 02:00 of 2026-11-01 (CET) is 01:00Z.
    const autumn = lastClosedPeriod('hour', 'Europe/Berlin', new Date('2026-11-01T02:05:00Z'));
    expect(autumn).toMatchObject({ key: '2026-11-01T02:00', once: true });
    expect(autumn.baselineKeys).toEqual(['2026-10-18T02:00', '2026-10-11T02:00', '2026-10-04T02:00']);
    // The repeated hour itself is not a period to hold against the usual one; the other hours are.
    expect(lastClosedPeriod('hour', 'Europe/Berlin', new Date('2026-10-25T02:05:00Z')).once).toBe(false);
    expect(lastClosedPeriod('hour', 'Europe/Berlin', new Date('2026-10-25T03:05:00Z'))).toMatchObject({
      key: '2026-10-25T03:00',
      once: true,
    });
    // Days are days: a day rule's baseline keeps every week.
    expect(lastClosedPeriod('day', 'Europe/Berlin', new Date('2027-04-05T10:00:00Z')).baselineKeys).toHaveLength(4);
  });
});
