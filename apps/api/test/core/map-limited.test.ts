import { describe, expect, it } from 'vitest';
import { allEnded, mapLimited } from '../../src/core/map-limited.ts';

describe('mapLimited', () => {
  it('answers in the items’ order with at most `limit` running at once', async () => {
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const work = mapLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return n * 10;
    });
    // Let the last-started finish first each time: the order of answers must not follow finishing order.
    for (let done = 0; done < 7; done++) {
      await expect.poll(() => releases.length).toBeGreaterThan(0);
      releases.pop()?.();
    }
    expect(await work).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(most).toBe(3);
  });

  it('passes a failure on', async () => {
    await expect(mapLimited([1, 2], 2, async (n) => (n === 2 ? Promise.reject(new Error('two')) : n))).rejects.toThrow('two');
  });

  // The fault: one batch spec timed out; the batch answered 503 and gave its slot back while the other workers went
  // on through the remaining specs, each on the stats pool with no slot held.
  it('after a failure starts no further item, and throws only once those running have ended', async () => {
    const started: number[] = [];
    const releases = new Map<number, () => void>();
    let settled = false;
    const work = mapLimited([1, 2, 3, 4, 5, 6], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('one');
      await new Promise<void>((resolve) => releases.set(n, resolve));
      return n;
    }).finally(() => {
      settled = true;
    });
    const outcome = work.then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await expect.poll(() => releases.has(2)).toBe(true);
    expect(settled).toBe(false);
    releases.get(2)?.();
    expect(await outcome).toBe('one');
    expect(started).toEqual([1, 2]);
  });

  it('answers an empty list without calling', async () => {
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
  });

  // The fault: goal results ran three statements with Promise.all; the first to fail (a 503 of the fill budget)
  // answered and gave the workspace's slot back while the other two ran on, up to the statement timeout.
  it('allEnded throws the first failure only once every promise has ended, and answers in order otherwise', async () => {
    let release!: () => void;
    let slowEnded = false;
    const slow = new Promise<string>((resolve) => {
      release = () => {
        slowEnded = true;
        resolve('slow');
      };
    });
    let settled = false;
    const all = allEnded([Promise.reject(new Error('budget')), slow]).finally(() => {
      settled = true;
    });
    all.catch(() => {});
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    release();
    await expect(all).rejects.toThrow('budget');
    expect(slowEnded).toBe(true);
    expect(await allEnded([Promise.resolve(1), Promise.resolve('two')])).toEqual([1, 'two']);
  });
});
