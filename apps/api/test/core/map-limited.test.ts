import { describe, expect, it } from 'vitest';
import { mapLimited } from '../../src/core/map-limited.ts';

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

  it('answers an empty list without calling', async () => {
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
  });
});
