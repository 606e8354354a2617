export interface LookupCacheOptions<V = unknown> {
  /** How long an answer is used after its lookup started. */
  ttlMs: number;
  /** In the last this-many ms of an entry's life, the first request that sees it refreshes it in the background. */
  refreshMs: number;
  /** Entries kept at most; a full cache forgets the answer looked up longest ago. */
  maxEntries: number;
  now: () => number;
  /** A background refresh failed: the entry is used until it expires, then looked up in the foreground. */
  onRefreshError: (err: unknown) => void;
  /** Whether an answer is kept (default: every answer); one not kept still goes to the requests that waited for it. */
  keep?: (value: V) => boolean;
}

/**
 * Answers of lookups by key, each for `ttlMs`, for what the hot paths look up per request (the collect path's
 * sites: faces/collect/site-cache.ts; a workspace's logging pause: features/billing/usage-pause.ts; API tokens: actor/token-cache.ts). A busy key never costs a database
 * round trip per request: requests that miss one key at the same time share one lookup, and an entry
 * close to its end is refreshed in the background while requests go on with it.
 * (Before, every report arriving while a busy site's entry had just expired looked the site up itself:
 * under load, once a minute, the lookups queued on the pool and the answers waited for them;
 * docs/performance/history.md, "Two stalls of the collect path found with the rounds".)
 * `clear()` forgets everything, lookups under way included: their answers go to the requests that waited
 * for them but are not kept; `forget()` forgets the answers it picks, and the lookups under way.
 */
export class LookupCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  private epoch = 0;

  constructor(private readonly o: LookupCacheOptions<V>) {}

  /** The live answer for `key`, if there is one (no lookup). */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > this.o.now() ? hit.value : undefined;
  }

  /**
   * The answer for `key`: the cached one while it lives (no promise made), else the one lookup under way or
   * a new one. `load` is given the key, so a caller can pass the same function every time (nothing made per hit).
   */
  get(key: string, load: (key: string) => Promise<V>): V | Promise<V> {
    const now = this.o.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) {
      if (hit.until - now <= this.o.refreshMs && !this.loading.has(key)) this.start(key, load, now).catch(this.o.onRefreshError);
      return hit.value;
    }
    return this.loading.get(key) ?? this.start(key, load, now);
  }

  /** Whether a lookup of `key` is under way (a request for it now joins that one). */
  isLoading(key: string): boolean {
    return this.loading.has(key);
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
    this.epoch += 1;
  }

  /**
   * Forgets the answers `drop` picks (one pass over the entries). Lookups under way are forgotten as `clear()`
   * forgets them, whatever their key: one may have read what just changed.
   */
  forget(drop: (key: string, value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (drop(key, entry.value)) this.entries.delete(key);
    this.loading.clear();
    this.epoch += 1;
  }

  private start(key: string, load: (key: string) => Promise<V>, now: number): Promise<V> {
    const epoch = this.epoch;
    const lookup: Promise<V> = Promise.resolve(key)
      .then(load)
      .then((value) => {
        if (epoch === this.epoch && (this.o.keep?.(value) ?? true)) {
          // Kept last in the map's order, so a full cache forgets the answer looked up longest ago: a busy key
          // is refreshed before its end, so a flood of new keys takes the ones nobody asked for again first.
          this.entries.delete(key);
          if (this.entries.size >= this.o.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
          this.entries.set(key, { value, until: now + this.o.ttlMs });
        } else if (epoch === this.epoch) this.entries.delete(key);
        return value;
      })
      .finally(() => {
        if (this.loading.get(key) === lookup) this.loading.delete(key);
      });
    this.loading.set(key, lookup);
    return lookup;
  }
}
