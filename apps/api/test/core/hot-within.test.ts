// answerWithin (src/core/hot/within.ts): a hot-store call answers within its deadline, with its fallback past
// it or when it fails, however many are pending at once; one shared timer checks the deadlines.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { answerWithin, hotAnswer } from '../../src/core/hot/within.ts';

const never = <T>() => new Promise<T>(() => {});
const after = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));

describe('answerWithin', () => {
  it("answers the call's value when it comes in time", async () => {
    await expect(answerWithin(Promise.resolve(7), 100, 0)).resolves.toBe(7);
    await expect(answerWithin(after(20, 'late but in time'), 200, 'fallback')).resolves.toBe('late but in time');
  });

  it('answers the fallback when the call fails, and leaves no unhandled rejection', async () => {
    await expect(answerWithin(Promise.reject(new Error('store gone')), 100, 0)).resolves.toBe(0);
  });

  it('answers the fallback once the deadline has passed, not before, each call on its own deadline', async () => {
    const started = Date.now();
    const times: Record<string, number> = {};
    const timed = <T>(name: string, p: Promise<T>) =>
      p.then((v) => {
        times[name] = Date.now() - started;
        return v;
      });
    const answers = await Promise.all([
      timed('short', answerWithin(never<number>(), 30, -1)),
      timed('long', answerWithin(never<number>(), 120, -2)),
      timed('answered', answerWithin(after(10, 5), 120, -3)),
    ]);
    expect(answers).toEqual([-1, -2, 5]);
    expect(times.short).toBeGreaterThanOrEqual(29);
    expect(times.long).toBeGreaterThanOrEqual(119);
    expect(times.short).toBeLessThan(times.long as number);
    expect(times.answered).toBeLessThan(times.long as number);
  });

  it('keeps answering after the shared timer stopped for lack of pending calls', async () => {
    await expect(answerWithin(never<string>(), 20, 'first')).resolves.toBe('first');
    await after(50, null); // nothing pending: the timer is cleared
    await expect(answerWithin(never<string>(), 20, 'second')).resolves.toBe('second');
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
    const started = Date.now();
    await expect(hotAnswer({ kind: 'redis' }, never<number>(), 30, -1)).resolves.toBe(-1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});
