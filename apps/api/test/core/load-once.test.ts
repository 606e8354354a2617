import { describe, expect, it } from 'vitest';
import { loadOnce } from '../../src/core/load-once.ts';

describe('loadOnce', () => {
  it('loads on the first call only, and shares that load', async () => {
    let loads = 0;
    const part = loadOnce(async () => ++loads);
    expect(part.started()).toBeUndefined();
    expect(loads).toBe(0);
    expect(await Promise.all([part(), part()])).toEqual([1, 1]);
    expect(await part()).toBe(1);
    expect(await part.started()).toBe(1);
    expect(loads).toBe(1);
  });

  it('tries again after a failed load instead of keeping the failure', async () => {
    let loads = 0;
    const part = loadOnce(async () => {
      loads++;
      if (loads === 1) throw new Error('the module could not be read');
      return 'loaded';
    });
    await expect(part()).rejects.toThrow('the module could not be read');
    expect(part.started()).toBeUndefined();
    expect(await part()).toBe('loaded');
    expect(loads).toBe(2);
  });
});
