// API tokens a node has already looked up, kept in memory so a token's request skips the database: the
// credential lookup was most of `GET /v1/me`'s cost (docs/performance/history.md, "The first changes (issue 13)").
// "Revoked means refused at once" still holds on every node: every operation that ended tokens bumps a counter of each
// in the hot store after it committed (procedures/procedures.ts, told by `noteTokensEnded`), and a cached token is used
// only while its counter, and the counter of every token, read what they read before the token was loaded. Each request
// costs two hot-store reads at once instead (none with in-process hot state); if the hot store cannot answer, the
// database is asked as before. (One counter for every token made each revocation send every tenant's tokens back to the
// database on every node: a tenant revoking tokens in a loop kept them there.)
import { AsyncLocalStorage } from 'node:async_hooks';
import { LookupCache } from '../core/cache/lookup-cache.ts';
import type { HotStore } from '../core/hot/store.ts';
import { hotAnswer } from '../core/hot/within.ts';

/** Every token's counter: bumped by hand after revoking by SQL, and by a revocation of very many tokens. */
const GENERATION_KEY = 'credentials:generation';
const GENERATION_TTL_SECONDS = 30 * 86_400;
/** One token's counter, by the hash the request has before any lookup. Outlives any entry read under its value. */
const tokenGenerationKey = (hash: string) => `credentials:token:${hash}`;
const TOKEN_GENERATION_TTL_SECONDS = 86_400;
/** Past this many tokens ended by one operation, it bumps every token's counter instead of each. */
const TOKENS_BUMPED_ONE_BY_ONE = 100;
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

const ends = new AsyncLocalStorage<{ ended: string[] }>();

/**
 * Said by every function that revokes tokens (features/tokens/revocation.ts, password reset), with the hashes of
 * the tokens it ended. Inside an operation (`watchTokenEnds`), the operation then bumps their counters once it
 * has succeeded, i.e. after its transaction committed: bumping before would let another request cache the token
 * between the bump and the commit.
 */
export function noteTokensEnded(hashes: readonly string[]): void {
  ends.getStore()?.ended.push(...hashes);
}

/** Runs an operation, answering the hashes of the tokens it revoked on the way (see `noteTokensEnded`). */
export async function watchTokenEnds<T>(fn: () => Promise<T>): Promise<{ result: T; ended: string[] }> {
  const watch = { ended: [] as string[] };
  const result = await ends.run(watch, fn);
  return { result, ended: watch.ended };
}

/**
 * Called after a change that ended tokens has committed: every node looks those tokens up again (every token,
 * when `hashes` is not given or is very long).
 */
export async function bumpCredentialsGeneration(hot: HotStore, hashes?: readonly string[]): Promise<void> {
  if (!hashes || hashes.length > TOKENS_BUMPED_ONE_BY_ONE) {
    await hot.incr(GENERATION_KEY, GENERATION_TTL_SECONDS);
    return;
  }
  await Promise.all(hashes.map((hash) => hot.incr(tokenGenerationKey(hash), TOKEN_GENERATION_TTL_SECONDS)));
}

/** Every token's counter and this token's, as one key part; undefined when the hot store did not answer in time. */
function readGeneration(hot: HotStore, hash: string): Promise<string | undefined> {
  const both = Promise.all([hot.get(GENERATION_KEY), hot.get(tokenGenerationKey(hash))]).then(([all, one]) => `${all}|${one}`);
  return hotAnswer<string | undefined>(hot, both, GENERATION_WAIT_MS, undefined);
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
  // Keyed by `hash|generation|token's generation`: a bump makes the key new, so a request that read the counters
  // after a revocation never takes an answer (or a shared lookup) from before it. Requests that miss one token at
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
      const generation = await readGeneration(hot, hash);
      if (generation === undefined) return load();
      return cache.get(`${hash}|${generation}`, load);
    },
  };
}
