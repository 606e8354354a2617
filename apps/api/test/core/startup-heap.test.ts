import { describe, expect, it } from 'vitest';
import { collectStartupGarbage } from '../../src/core/startup-heap.ts';

describe('the collection once start-up is done', () => {
  it('frees what start-up no longer holds, in a process started without --expose-gc', async () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    const ref = new WeakRef({ table: new Array(1_000_000).fill('start-up text') });
    // A WeakRef's target lives at least until the job that made it ends.
    await new Promise((r) => setTimeout(r, 0));
    collectStartupGarbage();
    expect(ref.deref()).toBeUndefined();
  });
});
