import { describe, expect, it } from 'vitest';
import { LookupCache } from '../../src/core/cache/lookup-cache.ts';

const turn = () => new Promise((r) => setImmediate(r));

/** A cache on a clock the test moves, with its lookups counted and each one's answer given by the test. */
function setup(o: { maxEntries?: number; keep?: (v: string) => boolean } = {}) {
  let at = 0;
  const refreshErrors: unknown[] = [];
  const cache = new LookupCache<string>({
    ttlMs: 60_000,
    refreshMs: 10_000,
    maxEntries: o.maxEntries ?? 100,
    now: () => at,
    onRefreshError: (e) => refreshErrors.push(e),
    keep: o.keep,
  });
  const lookups: { key: string; resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  const load = (key: string) => () =>
    new Promise<string>((resolve, reject) => {
      lookups.push({ key, resolve, reject });
    });
  const get = (key: string) => cache.get(key, load(key));
  return {
    cache,
    lookups,
    refreshErrors,
    get,
    at: (ms: number) => {
      at = ms;
    },
    /** Looks `key` up, answering its lookup with `value`. */
    async prime(key: string, value: string) {
      const p = get(key);
      await turn();
      lookups.at(-1)?.resolve(value);
      return p;
    },
  };
}

describe('LookupCache', () => {
  it('makes one lookup for requests that miss the same key at once, and answers them all', async () => {
    const c = setup();
    const answers = Array.from({ length: 50 }, () => c.get('pk'));
    await turn();
    expect(c.lookups).toHaveLength(1);
    c.lookups[0]?.resolve('site A');
    expect(await Promise.all(answers)).toEqual(Array(50).fill('site A'));
  });

  it('answers from the entry without a lookup (and without a promise) until it expires, then looks up once', async () => {
    const c = setup();
    await c.prime('pk', 'site A');
    c.at(49_999);
    expect(c.get('pk')).toBe('site A');
    c.at(60_000);
    const again = [c.get('pk'), c.get('pk'), c.get('pk')];
    await turn();
    expect(c.lookups).toHaveLength(2);
    c.lookups[1]?.resolve('site A2');
    expect(await Promise.all(again)).toEqual(['site A2', 'site A2', 'site A2']);
  });

  it('refreshes an entry in use before it expires, in the background, once', async () => {
    const c = setup();
    await c.prime('pk', 'site A');
    c.at(52_000);
    // Within the last 10 s: the entry answers at once, and one refresh starts.
    expect(c.get('pk')).toBe('site A');
    expect(c.get('pk')).toBe('site A');
    await turn();
    expect(c.lookups).toHaveLength(1 + 1);
    c.lookups[1]?.resolve('site A2');
    await turn();
    // The refreshed entry lives 60 s from its lookup's start: past the old end, no request waits.
    c.at(100_000);
    expect(c.get('pk')).toBe('site A2');
    expect(c.lookups).toHaveLength(2);
  });

  it('keeps using an entry whose refresh failed until it expires, then the lookup error reaches the request', async () => {
    const c = setup();
    await c.prime('pk', 'site A');
    c.at(55_000);
    expect(c.get('pk')).toBe('site A');
    await turn();
    c.lookups[1]?.reject(new Error('database gone'));
    await turn();
    expect(c.refreshErrors).toHaveLength(1);
    expect(c.get('pk')).toBe('site A');
    c.at(60_000);
    const late = c.get('pk');
    await turn();
    c.lookups.at(-1)?.reject(new Error('database gone'));
    await expect(late).rejects.toThrow('database gone');
    // A failed lookup is not kept: the next request looks up again.
    const retry = c.get('pk');
    await turn();
    c.lookups.at(-1)?.resolve('site A3');
    expect(await retry).toBe('site A3');
  });

  it('does not keep an answer looked up before clear(), and a request after clear() does not wait for it', async () => {
    const c = setup();
    const before = c.get('pk');
    await turn();
    c.cache.clear();
    const after = c.get('pk');
    await turn();
    expect(c.lookups).toHaveLength(2);
    c.lookups[0]?.resolve('old site');
    c.lookups[1]?.resolve('new site');
    expect(await before).toBe('old site');
    expect(await after).toBe('new site');
    expect(c.get('pk')).toBe('new site');
  });

  it('does not keep an answer `keep` refuses, and drops the entry a refresh answered that way', async () => {
    const c = setup({ keep: (v) => v !== 'gone' });
    expect(await c.prime('pk', 'gone')).toBe('gone');
    c.get('pk');
    await turn();
    expect(c.lookups).toHaveLength(2);
    c.lookups[1]?.resolve('site A');
    await turn();
    c.at(52_000);
    expect(c.get('pk')).toBe('site A');
    await turn();
    c.lookups[2]?.resolve('gone');
    await turn();
    // The refresh said the answer is gone: the old one is not used for the rest of its life.
    c.at(53_000);
    c.get('pk');
    await turn();
    expect(c.lookups).toHaveLength(4);
  });

  it('holds at most maxEntries keys', async () => {
    const c = setup({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd']) await c.prime(key, `site ${key}`);
    expect(c.cache.peek('d')).toBe('site d');
    expect(c.cache.peek('a')).toBeUndefined();
  });

  it('when full forgets its oldest answer, not every answer: one refreshed since stays (a flood of new keys)', async () => {
    const c = setup({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) await c.prime(key, `site ${key}`);
    // Late in its life, a busy key is refreshed in the background, and counts as new again.
    c.at(55_000);
    expect(c.get('a')).toBe('site a');
    await turn();
    c.lookups.at(-1)?.resolve('site a again');
    await turn();
    await c.prime('d', 'site d');
    expect(c.cache.peek('a')).toBe('site a again');
    expect(c.cache.peek('b')).toBeUndefined();
    expect(c.cache.peek('c')).toBe('site c');
    expect(c.cache.peek('d')).toBe('site d');
  });
});
