// answerWithin (src/core/hot/within.ts): a hot-store call answers within its deadline, with its fallback past
// it or when it fails, however many are pending at once; one shared timer checks the deadlines.
// Time is the point here, so it runs on fake timers (Date and the shared timer included) that the tests move:
// each deadline is checked to the millisecond, and nothing waits in real time.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { answerWithin, hotAnswer } from '../../src/core/hot/within.ts';

const never = <T>() => new Promise<T>(() => {});
const after = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));
/** Whether `p` has settled (its handlers run within the microtasks that follow). */
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

// One fake clock for the whole file: the shared timer lives in the module across tests.
beforeAll(() => {
  vi.useFakeTimers();
});
afterAll(() => {
  vi.useRealTimers();
});

describe('answerWithin', () => {
  it("answers the call's value when it comes in time", async () => {
    await expect(answerWithin(Promise.resolve(7), 100, 0)).resolves.toBe(7);
    const late = answerWithin(after(20, 'late but in time'), 200, 'fallback');
    await vi.advanceTimersByTimeAsync(20);
    await expect(late).resolves.toBe('late but in time');
  });

  it('answers the fallback when the call fails, and leaves no unhandled rejection', async () => {
    await expect(answerWithin(Promise.reject(new Error('store gone')), 100, 0)).resolves.toBe(0);
  });

  it('answers the fallback once the deadline has passed, not before, each call on its own deadline', async () => {
    const short = answerWithin(never<number>(), 30, -1);
    const long = answerWithin(never<number>(), 120, -2);
    const answered = answerWithin(after(10, 5), 120, -3);
    await vi.advanceTimersByTimeAsync(10);
    expect(await settled(answered)).toBe(true);
    await vi.advanceTimersByTimeAsync(19); // 29 ms
    expect(await settled(short)).toBe(false);
    await vi.advanceTimersByTimeAsync(11); // 40 ms: the deadline and the next check of the shared timer
    expect(await settled(short)).toBe(true);
    await vi.advanceTimersByTimeAsync(79); // 119 ms
    expect(await settled(long)).toBe(false);
    await vi.advanceTimersByTimeAsync(11); // 130 ms
    expect(await Promise.all([short, long, answered])).toEqual([-1, -2, 5]);
  });

  it('keeps answering after the shared timer stopped for lack of pending calls', async () => {
    const first = answerWithin(never<string>(), 20, 'first');
    await vi.advanceTimersByTimeAsync(30);
    await expect(first).resolves.toBe('first');
    await vi.advanceTimersByTimeAsync(10); // the next check finds nothing pending
    expect(vi.getTimerCount()).toBe(0); // the shared timer is cleared
    const second = answerWithin(never<string>(), 20, 'second');
    await vi.advanceTimersByTimeAsync(30);
    await expect(second).resolves.toBe('second');
    await expect(answerWithin(Promise.resolve('third'), 20, 'x')).resolves.toBe('third');
  });

  it('does not keep a process alive while a call hangs', () => {
    const script = `import { answerWithin } from ${JSON.stringify(new URL('../../src/core/hot/within.ts', import.meta.url).pathname)};
      answerWithin(new Promise(() => {}), 60_000, 0); console.log('started');`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stdout.trim()).toBe('started');
    expect(run.status).toBe(0);
  });
});

describe('hotAnswer', () => {
  it('gives the in-process store’s answer as it is, and its failure as the fallback', async () => {
    const memory = { kind: 'memory' as const };
    await expect(hotAnswer(memory, Promise.resolve(3), 10, 0)).resolves.toBe(3);
    await expect(hotAnswer(memory, Promise.reject(new Error('x')), 10, 0)).resolves.toBe(0);
  });

  it('holds a network store to its deadline: the fallback when it never answers', async () => {
    const answer = hotAnswer({ kind: 'redis' }, never<number>(), 30, -1);
    await vi.advanceTimersByTimeAsync(29);
    expect(await settled(answer)).toBe(false);
    await vi.advanceTimersByTimeAsync(11);
    await expect(answer).resolves.toBe(-1);
  });
});
