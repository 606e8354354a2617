import { describe, expect, it } from 'vitest';
import { ExpirySweep } from '../../src/core/hot/expiry-sweep.ts';

type Entries = Map<string, { expiresAt: number }>;

/** `n` keys, every other one expired at `now`. */
function keys(prefix: string, n: number, now: number): Entries {
  const m: Entries = new Map();
  for (let i = 0; i < n; i++) m.set(`${prefix}${i}`, { expiresAt: i % 2 ? now - 1 : now + 60_000 });
  return m;
}

describe('ExpirySweep', () => {
  it('forgets expired keys a slice at a time, keeps the live ones, and finishes the pass over every map', () => {
    const now = 1_000_000;
    const a = keys('a', 10_000, now);
    const b = keys('b', 1_000, now);
    // stepMs 0: one slice (256 entries looked at) a step, whatever the machine's speed.
    const sweep = new ExpirySweep([a, b], () => now, { everyMs: 60_000, stepMs: 0 });
    expect(sweep.step()).toBe(true);
    expect(a.size).toBe(10_000 - 128);
    let steps = 1; // the one above
    let going = true;
    while (going) {
      going = sweep.step();
      steps++;
    }
    expect(steps).toBe(Math.ceil(11_000 / 256));
    expect(a.size).toBe(5_000);
    expect(b.size).toBe(500);
    expect([...a.values(), ...b.values()].every((e) => e.expiresAt > now)).toBe(true);
  });

  it('starts a pass at most every everyMs by the store’s clock', () => {
    let now = 1_000_000;
    const m = keys('k', 10, now);
    const sweep = new ExpirySweep([m], () => now, { everyMs: 60_000, stepMs: 0 });
    expect(sweep.step()).toBe(false); // ten keys: the pass ends within the step
    expect(m.size).toBe(5);
    m.set('late', { expiresAt: now });
    now += 59_999;
    sweep.step();
    expect(m.has('late')).toBe(true);
    now += 1;
    sweep.step();
    expect(m.has('late')).toBe(false);
  });

  it('goes on while keys are added and deleted under it', () => {
    const now = 1_000_000;
    const m = keys('k', 2_000, now);
    const sweep = new ExpirySweep([m], () => now, { everyMs: 60_000, stepMs: 0 });
    sweep.step();
    for (let i = 0; i < 500; i++) m.set(`new${i}`, { expiresAt: now - 1 });
    for (let i = 1_000; i < 1_100; i++) m.delete(`k${i}`);
    while (sweep.step()) {}
    expect([...m.keys()].some((k) => k.startsWith('new'))).toBe(false);
    expect(m.size).toBe(1_000 - 50);
  });
});
