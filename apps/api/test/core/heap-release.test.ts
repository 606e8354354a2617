import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  collectStartupGarbage,
  RELEASE_GROWTH_BYTES,
  releaseAfterWork,
  releaseMemory,
  releaseWhenIdle,
} from '../../src/core/heap-release.ts';

const MB = 1 << 20;

/** About `mb` MB of small objects on V8's heap, made and dropped (what a large answer or a job leaves). */
function spike(mb: number): void {
  let keep: { n: number; s: string }[][] = [];
  for (let i = 0; i < mb; i++) keep.push(Array.from({ length: 16_000 }, (_, n) => ({ n, s: `x${n}` })));
  keep = [];
  expect(keep).toHaveLength(0);
}

describe('giving memory back', () => {
  it('frees what start-up no longer holds, in a process started without --expose-gc', async () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    const ref = new WeakRef({ table: new Array(1_000_000).fill('start-up text') });
    // A WeakRef's target lives at least until the job that made it ends.
    await new Promise((r) => setTimeout(r, 0));
    collectStartupGarbage();
    expect(ref.deref()).toBeUndefined();
  });

  it('returns the pages a spike of garbage took to the system, not only to V8', () => {
    releaseMemory();
    const before = process.memoryUsage.rss();
    spike(300);
    const grown = process.memoryUsage.rss() - before;
    // Not vacuous: the spike made the process grow by more than the release has to give back.
    expect(grown).toBeGreaterThan(200 * MB);
    releaseMemory();
    expect(process.memoryUsage.rss() - before).toBeLessThan(64 * MB);
  });

  it('after background work, releases only when the process grew since the last release', () => {
    releaseMemory();
    expect(releaseAfterWork()).toBe(false);
    const held = Buffer.alloc(RELEASE_GROWTH_BYTES * 2, 1);
    expect(releaseAfterWork()).toBe(true);
    expect(releaseAfterWork()).toBe(false);
    expect(held.length).toBe(RELEASE_GROWTH_BYTES * 2);
  });

  describe('once background work pauses', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('after work in a row, releases once, when none has come for the pause', () => {
      const release = vi.fn();
      const idle = releaseWhenIdle(1000, 60_000, release);
      // Three rollups one after another, the next starting 50 ms after the last ended.
      for (let i = 0; i < 3; i++) {
        idle.started();
        vi.advanceTimersByTime(400);
        idle.ended();
        vi.advanceTimersByTime(50);
      }
      expect(release).not.toHaveBeenCalled();
      vi.advanceTimersByTime(950);
      expect(release).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(5000);
      expect(release).toHaveBeenCalledTimes(1);
    });

    it('waits for every piece of work running at once to end', () => {
      const release = vi.fn();
      const idle = releaseWhenIdle(1000, 60_000, release);
      idle.started();
      idle.started();
      idle.ended();
      vi.advanceTimersByTime(2000);
      expect(release).not.toHaveBeenCalled();
      idle.ended();
      vi.advanceTimersByTime(1000);
      expect(release).toHaveBeenCalledTimes(1);
    });

    it('while work keeps coming, releases as a piece ends once the last release is old enough', () => {
      const release = vi.fn();
      const idle = releaseWhenIdle(1000, 10_000, release);
      // Two-second rollups back to back for 25 s: no pause of a second, so only the gap releases.
      for (let t = 0; t < 25_000; t += 2000) {
        idle.started();
        vi.advanceTimersByTime(1990);
        idle.ended();
        vi.advanceTimersByTime(10);
      }
      expect(release).toHaveBeenCalledTimes(2);
      vi.advanceTimersByTime(1000);
      expect(release).toHaveBeenCalledTimes(3);
    });
  });
});
