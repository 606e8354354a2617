// A busy token whose entry has just expired (or that was never looked up on this node) is looked up once,
// not once per request arriving meanwhile: on a busy node those lookups queued on the pool together.
import { describe, expect, it, vi } from 'vitest';
import { bumpCredentialsGeneration, type CallerToken, tokenCacheOf } from '../../src/actor/token-cache.ts';
import { MemoryStore } from '../../src/core/hot/memory.ts';

const token = (id: string): CallerToken => ({
  id,
  name: 'ci',
  workspaceId: 'w1',
  scopes: ['sites:read'],
  siteIds: null,
  createdBy: { id: 'u1' },
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
});

describe('the token cache', () => {
  it('shares one lookup among the requests that miss the same token at once', async () => {
    const cache = tokenCacheOf(new MemoryStore());
    let loads = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    // The lookup stays open until every request has asked: all 50 miss the token while it runs.
    const load = async () => {
      loads++;
      await held;
      return token('t1');
    };
    const asked = Array.from({ length: 50 }, () => cache.lookup('hash-1', load));
    // The in-process store answers within the turn: one turn later every request has reached the cache.
    await new Promise((r) => setImmediate(r));
    release();
    const answers = await Promise.all(asked);
    expect(loads).toBe(1);
    expect(answers.every((t) => t?.id === 't1')).toBe(true);
    // Answered from memory afterwards.
    await cache.lookup('hash-1', load);
    expect(loads).toBe(1);
  });

  it('does not share a lookup that began before a revocation with requests that came after it', async () => {
    const hot = new MemoryStore();
    const cache = tokenCacheOf(hot);
    let loads = 0;
    let release: () => void = () => {};
    const slow = () =>
      new Promise<CallerToken | null>((resolve) => {
        loads++;
        release = () => resolve(token('t2'));
      });
    const before = cache.lookup('hash-2', slow);
    await vi.waitFor(() => expect(loads).toBe(1)); // the first lookup is under way
    await bumpCredentialsGeneration(hot);
    const after = cache.lookup('hash-2', async () => {
      loads++;
      return null;
    });
    release();
    expect((await before)?.id).toBe('t2');
    expect(await after).toBeNull();
    expect(loads).toBe(2);
  });

  it('does not keep an unknown token, and a failed lookup is not shared with later requests', async () => {
    const cache = tokenCacheOf(new MemoryStore());
    let loads = 0;
    await expect(
      cache.lookup('hash-3', async () => {
        loads++;
        throw new Error('database down');
      }),
    ).rejects.toThrow('database down');
    const counted = (answer: CallerToken | null) => async () => {
      loads++;
      return answer;
    };
    expect(await cache.lookup('hash-3', counted(null))).toBeNull();
    expect(await cache.lookup('hash-3', counted(token('t3')))).toMatchObject({ id: 't3' });
    expect(loads).toBe(3);
  });

  // The attack: a tenant creating and revoking tokens in a loop. One counter for every token sent every tenant's
  // tokens back to the database on every node after each revocation; now a revocation moves its tokens' counters.
  it('looks up again only the tokens a revocation ended, unless it ended every token', async () => {
    const hot = new MemoryStore();
    const cache = tokenCacheOf(hot);
    let loads = 0;
    const counted = (id: string) => async () => {
      loads++;
      return token(id);
    };
    await cache.lookup('hash-busy', counted('busy'));
    await cache.lookup('hash-gone', counted('gone'));
    expect(loads).toBe(2);
    for (let i = 0; i < 5; i++) await bumpCredentialsGeneration(hot, ['hash-gone']);
    expect(await cache.lookup('hash-busy', counted('busy'))).toMatchObject({ id: 'busy' });
    expect(loads).toBe(2);
    const revoked = async () => {
      loads++;
      return null;
    };
    expect(await cache.lookup('hash-gone', revoked)).toBeNull();
    expect(loads).toBe(3);
    // Every token's counter (a revocation by SQL, by hand; or of very many tokens at once).
    await bumpCredentialsGeneration(hot);
    await cache.lookup('hash-busy', counted('busy'));
    expect(loads).toBe(4);
    await bumpCredentialsGeneration(
      hot,
      Array.from({ length: 101 }, (_, i) => `hash-many-${i}`),
    );
    await cache.lookup('hash-busy', counted('busy'));
    expect(loads).toBe(5);
  });
});
