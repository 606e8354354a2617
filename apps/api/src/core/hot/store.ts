/**
 * Hot state: throttles, rate-limit buckets, idempotency records, short-lived challenges.
 * Two implementations of one interface: Redis (shared by every node: one server or a Redis Cluster) and
 * in-process (one node only). All TTLs are in seconds; values are strings. Keys used together in one call (a
 * recent list; a bounded family's index, hashes and list) share a hash tag, `{…}` (`slots.ts`): a cluster keeps
 * them in one slot, and both stores refuse a call whose keys do not.
 */
export interface HotStore {
  readonly kind: 'redis' | 'redis-cluster' | 'memory';
  /** `text` (a client address, with what counts beside it) as keys name it: keyed, never readable back (`address-tag.ts`). */
  tag(text: string): string;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  del(...keys: string[]): Promise<void>;
  /**
   * Sets `value` with a new expiry only while the key holds `expected`, in one atomic step; true when it did.
   * A claim's holder renews or settles it this way, never touching a claim that ran out and is another's now.
   */
  replaceIfEquals(key: string, expected: string, value: string, ttlSeconds: number): Promise<boolean>;
  /** Deletes the key only while it holds `expected`, in one atomic step; true when it did. */
  delIfEquals(key: string, expected: string): Promise<boolean>;
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
  /**
   * Atomically adds `add` to fields of a hash and sets the fields of `set`, then sets the hash's expiry to
   * `ttlSeconds` from now (a sliding window: it lives that long after its last change), and answers every
   * field with its number. Values are integers. Behaviour memory keeps one visitor's signs in one call.
   */
  hupdate(
    key: string,
    change: { add?: Record<string, number>; set?: Record<string, number> },
    ttlSeconds: number,
  ): Promise<Record<string, number>>;
  /**
   * Files `member` with `value` under `key` as seen now, in a bounded list of recent members: members not
   * seen for `maxAgeSeconds` leave it, and past `cap` members the longest unseen leave first. The list
   * itself expires `maxAgeSeconds` after its last change. `key` carries a hash tag (its values live beside it).
   */
  recentPut(key: string, member: string, value: string, cap: number, maxAgeSeconds: number): Promise<void>;
  /** The members of a recent list seen within `maxAgeSeconds`, most recently seen first, at most `limit`. */
  recentList(key: string, limit: number, maxAgeSeconds: number): Promise<RecentEntry[]>;
  /**
   * `hupdate` of one member of a bounded family of hashes (`family.prefix` + `member`), in one atomic step
   * with its weight in the family's index `family.index`: the hash's field `family.weight` after the change.
   * Past `family.cap` members the lightest leave (their hashes deleted, and each leaves the recent list
   * `family.list` too when one is named); among equally light ones, any may. A newcomer lighter than every
   * member of a full family leaves at once: the answer is then null, and nothing of it is kept. The index
   * expires `ttlSeconds` after its last change, as each hash does. The index, the prefix and the list carry one
   * hash tag (such as the site's id: `bm-index:{<site>}:…`).
   * - `change.window` counts fields in a fixed window (a minute): its number is kept in `window.field`; a
   *   later window starts its counts again, an earlier one adds nothing.
   * - `change.listed` files the member in `family.list` with that value, as seen now, in the same step (only
   *   if it stays; the list then lives `ttlSeconds`), so the list never holds a member the family let go.
   * The in-process store also keeps at most `family.nodeCap` members over every family it holds: past it, a
   * family at or above its fair share (the total over the families) makes room in itself, any other takes
   * it from the largest. A shared store ignores `nodeCap` (its size is families × cap).
   */
  boundedUpdate(
    family: BoundedFamily,
    member: string,
    change: BoundedChange,
    ttlSeconds: number,
  ): Promise<Record<string, number> | null>;
}

/** A family of hashes kept to `cap` members by weight (`HotStore.boundedUpdate`). */
export interface BoundedFamily {
  /** The key of the family's index of members by weight. */
  index: string;
  /** Each member's hash is at `prefix` + member. */
  prefix: string;
  /** The field of a member's hash that weighs it (a count: the busiest stay). */
  weight: string;
  cap: number;
  /** A recent list (`recentList` reads it) of some members: a member leaving the family leaves it too. */
  list?: string;
  /** Members over every family of the in-process store at most (ignored by a shared store). */
  nodeCap?: number;
}

/** What `boundedUpdate` does to a member's hash (see there). */
export interface BoundedChange {
  add?: Record<string, number>;
  set?: Record<string, number>;
  window?: CountWindow;
  /** The member's value in the family's list, filed in the same step. */
  listed?: string;
}

/** Counts in a fixed window of a hash (`HotStore.boundedUpdate`): `add` to the window numbered `at`. */
export interface CountWindow {
  field: string;
  at: number;
  add: Record<string, number>;
}

/** One member of a recent list (`recentPut`), with when it was last seen (epoch milliseconds). */
export interface RecentEntry {
  member: string;
  value: string;
  at: number;
}
