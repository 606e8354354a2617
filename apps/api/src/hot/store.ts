/**
 * Hot state: throttles, rate-limit buckets, idempotency records, short-lived challenges.
 * Two implementations of one interface: Redis (shared by every node) and in-process (one node only).
 * All TTLs are in seconds; values are strings.
 */
export interface HotStore {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  del(...keys: string[]): Promise<void>;
  /** Atomically adds 1; a new counter lives `ttlSeconds` (the window does not slide). */
  incr(key: string, ttlSeconds: number): Promise<number>;
  /** Seconds left, or -2 when the key is absent. */
  ttl(key: string): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Takes one of `limit` slots under `key` for `holder`, in one atomic step (counted and checked
   * together); false when all are taken. A slot never given back frees itself after `ttlSeconds`.
   */
  acquireSlot(key: string, holder: string, limit: number, ttlSeconds: number): Promise<boolean>;
  /** Gives a slot back. */
  releaseSlot(key: string, holder: string): Promise<void>;
  /**
   * Atomically takes `by` off a counter, never below 0, keeping its expiry; an absent counter stays
   * absent. Returns the new value (0 when absent). Undoes a count that turned out not to be a failure.
   */
  decrBy(key: string, by: number): Promise<number>;
  /** Atomically adds `by` to one field of a hash; a new hash lives `ttlSeconds` (fixed window). */
  hincrBy(key: string, field: string, by: number, ttlSeconds: number): Promise<number>;
  /** Every field of a hash with its value, or an empty object when absent. */
  hgetall(key: string): Promise<Record<string, string>>;
}
