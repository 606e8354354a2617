// API tokens a node has already looked up, kept in memory so a token's request skips the database: the
// credential lookup was most of `GET /v1/me`'s cost (docs/performance/history.md, "The first changes (issue 13)").
// "Revoked means refused at once" still holds on every node: every operation that ended a token bumps one counter in the hot
// store after it committed (procedures/procedures.ts, told by `noteTokensEnded`), and a cached token is used
// only while the counter reads what it read before the token was loaded. Each request costs one hot-store read instead (none
// with in-process hot state); if the hot store cannot answer, the database is asked as before.
import { AsyncLocalStorage } from 'node:async_hooks';
import { LookupCache } from '../core/cache/lookup-cache.ts';
import type { HotStore } from '../core/hot/store.ts';
import { hotAnswer } from '../core/hot/within.ts';

const GENERATION_KEY = 'credentials:generation';
const GENERATION_TTL_SECONDS = 30 * 86_400;
const MAX_ENTRIES = 10_000;
/** Upper bound on an entry's life, should a bump ever fail (it is logged): a minute. */
const ENTRY_MS = 60_000;
/** A hot store slower than this is treated as down: the database answers instead. */
const GENERATION_WAIT_MS = 200;

/** What a request needs of its token (a plain copy: it outlives the request that loaded it). */
export interface CallerToken {
  id: string;
  name: string;
  workspaceId: string;
  scopes: string[];
  siteIds: string[] | null;
  createdBy: { id: string };
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const ends = new AsyncLocalStorage<{ ended: boolean }>();

/**
 * Said by every function that revokes tokens (features/tokens/revocation.ts, password reset). Inside an
 * operation (`watchTokenEnds`), the operation then bumps the counter once it has succeeded, i.e. after
 * its transaction committed: bumping before would let another request cache the token between the bump
 * and the commit.
 */
export function noteTokensEnded(): void {
  const watch = ends.getStore();
  if (watch) watch.ended = true;
}

/** Runs an operation, answering whether it revoked any token on the way (see `noteTokensEnded`). */
export async function watchTokenEnds<T>(fn: () => Promise<T>): Promise<{ result: T; ended: boolean }> {
  const watch = { ended: false };
  const result = await ends.run(watch, fn);
  return { result, ended: watch.ended };
}

/** Called after a change that ended tokens has committed: every node's cached tokens are looked up again. */
export async function bumpCredentialsGeneration(hot: HotStore): Promise<void> {
  await hot.incr(GENERATION_KEY, GENERATION_TTL_SECONDS);
}

function readGeneration(hot: HotStore): Promise<string | null | undefined> {
  return hotAnswer<string | null | undefined>(hot, hot.get(GENERATION_KEY), GENERATION_WAIT_MS, undefined);
}

export interface TokenCache {
  /** The token behind `hash`, from memory when nothing was revoked since, else from `load`. */
  lookup(hash: string, load: () => Promise<CallerToken | null>): Promise<CallerToken | null>;
}

const caches = new WeakMap<HotStore, TokenCache>();

/** One cache per hot store (per node; tests' servers each get their own). */
export function tokenCacheOf(hot: HotStore): TokenCache {
  let cache = caches.get(hot);
  if (!cache) {
    cache = makeTokenCache(hot);
    caches.set(hot, cache);
  }
  return cache;
}

function makeTokenCache(hot: HotStore): TokenCache {
  // Keyed by `hash|generation`: a bump makes every key new, so a request that read the counter after a
  // revocation never takes an answer (or a shared lookup) from before it. Requests that miss one token at
  // once share one lookup, and a token in use is looked up again in its entry's last 10 s.
  const cache = new LookupCache<CallerToken | null>({
    ttlMs: ENTRY_MS,
    refreshMs: 10_000,
    maxEntries: MAX_ENTRIES,
    now: Date.now,
    // The token in hand stays in use until its entry expires; then a failing lookup reaches the request.
    onRefreshError: () => {},
    // Unknown and revoked tokens are not kept: made-up tokens cannot fill the cache.
    keep: (token) => !!token && !token.revokedAt,
  });
  return {
    async lookup(hash, load) {
      // Read before loading: a revocation that commits after this read bumps past it, so the entry
      // stored below is never used after that revocation.
      const generation = await readGeneration(hot);
      if (generation === undefined) return load();
      return cache.get(`${hash}|${generation}`, load);
    },
  };
}
