import { describe, expect, it } from 'vitest';
import { FillQueue } from '../../../src/features/stats/kept-fills.ts';

/** A fill that records when it ran, and ends only when let go. */
function gatedFills() {
  const ran: string[] = [];
  const gates = new Map<string, () => void>();
  const fill = (name: string) => () =>
    new Promise<void>((resolve) => {
      ran.push(name);
      gates.set(name, resolve);
    });
  /** Lets the running fill `name` end, once it has started. */
  const finish = async (name: string) => {
    await expect.poll(() => gates.has(name)).toBe(true);
    gates.get(name)?.();
  };
  return { ran, fill, finish };
}

describe('the kept days’ fill queue', () => {
  it('serves a second site while a first keeps asking: its fill runs next, and the first’s extra asks are left', async () => {
    const queue = new FillQueue({ queued: 16, queuedPerSite: 2 });
    const { ran, fill, finish } = gatedFills();
    // Site a asks question after question: two are taken (one running, one waiting), the rest left for a later ask.
    const taken = ['a1', 'a2', 'a3', 'a4', 'a5'].map((q) => queue.add('a', q, fill(q)));
    expect(taken).toEqual([true, true, false, false, false]);
    expect(queue.add('b', 'b1', fill('b1'))).toBe(true);
    await finish('a1');
    await finish('b1');
    await finish('a2');
    await queue.settled();
    expect(ran).toEqual(['a1', 'b1', 'a2']);
    expect(queue.size).toBe(0);
  });

  it('gives sites turns in the order they asked, a site going behind those that asked while its fill ran', async () => {
    const queue = new FillQueue({ queued: 16, queuedPerSite: 3 });
    const { ran, fill, finish } = gatedFills();
    queue.add('a', 'a1', fill('a1'));
    queue.add('a', 'a2', fill('a2'));
    queue.add('b', 'b1', fill('b1'));
    queue.add('c', 'c1', fill('c1'));
    queue.add('b', 'b2', fill('b2'));
    for (const name of ['a1', 'b1', 'c1', 'a2', 'b2']) await finish(name);
    await queue.settled();
    expect(ran).toEqual(['a1', 'b1', 'c1', 'a2', 'b2']);
  });

  it('takes a question once while it waits, counts the whole queue, and takes a site’s asks again once its fills ended', async () => {
    const queue = new FillQueue({ queued: 2, queuedPerSite: 2 });
    const { ran, fill, finish } = gatedFills();
    expect(queue.add('a', 'q', fill('q'))).toBe(true);
    expect(queue.add('a', 'q', fill('q again'))).toBe(false);
    expect(queue.add('b', 'r', fill('r'))).toBe(true);
    expect(queue.add('c', 's', fill('s'))).toBe(false); // the whole queue is full
    expect(queue.size).toBe(2);
    await finish('q');
    await finish('r');
    await queue.settled();
    expect(queue.add('a', 'q', fill('q later'))).toBe(true);
    await finish('q later');
    await queue.settled();
    expect(ran).toEqual(['q', 'r', 'q later']);
  });

  it('goes on after a fill that fails', async () => {
    const queue = new FillQueue({ queued: 4, queuedPerSite: 2 });
    const ran: string[] = [];
    queue.add('a', 'bad', async () => {
      ran.push('bad');
      throw new Error('the statement failed');
    });
    queue.add('b', 'good', async () => {
      ran.push('good');
    });
    await queue.settled();
    expect(ran).toEqual(['bad', 'good']);
    expect(queue.size).toBe(0);
  });
});
