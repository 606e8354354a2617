import { tagOf } from './address-tag.ts';
import { connectRedis, isCluster, type RedisClient, type RedisTarget } from './redis-connection.ts';
import { assertOneSlot, familyKeys } from './slots.ts';
import type { BoundedChange, BoundedFamily, HotStore, RecentEntry } from './store.ts';

// INCR, and set the expiry only when the counter is new (it has none): a fixed window. Not `n == 1`: a counter
// decrBy brought to 0 keeps its window, and its next INCR gives 1.
const INCR_WITH_TTL = `local n = redis.call('INCR', KEYS[1])
if redis.call('TTL', KEYS[1]) == -1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

// A value replaced, or deleted, only while it is the one expected: a claim's holder renewing or giving it up.
const REPLACE_IF_EQUALS = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`;
const DEL_IF_EQUALS = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;

// Slots as a sorted set scored by expiry (ms): drop the expired, then add the holder if room is left.
const ACQUIRE_SLOT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;
// Subtract, never below 0, only from a counter that exists: its expiry stays as it was.
const DECR_FLOORED = `local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local n = tonumber(v) - tonumber(ARGV[1])
if n < 0 then n = 0 end
redis.call('SET', KEYS[1], n, 'KEEPTTL')
return n`;

// HINCRBY, and set the expiry only when the hash is new: a fixed window, as INCR_WITH_TTL.
const HINCR_WITH_TTL = `local n = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) == -1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return n`;

// Add to some fields, set others, slide the expiry, answer every field. ARGV: ttl, number of adds, then
// field/value pairs (the adds first).
const HUPDATE = `local adds = tonumber(ARGV[2])
local i = 3
for _ = 1, adds do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
while i <= #ARGV do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return redis.call('HGETALL', KEYS[1])`;

// A recent list: a sorted set of members scored by when seen (ms) and a hash of their values. Stale and
// surplus members leave at most 1,000 at a time (the list never grows by more than one per call).
// ARGV: now, member, value, cap, max age (ms).
const RECENT_PUT = `local now = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
local stale = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[5]), 'LIMIT', 0, 1000)
if #stale > 0 then
  redis.call('ZREM', KEYS[1], unpack(stale))
  redis.call('HDEL', KEYS[2], unpack(stale))
end
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then
  local extra = redis.call('ZRANGE', KEYS[1], 0, math.min(over, 1000) - 1)
  redis.call('ZREM', KEYS[1], unpack(extra))
  redis.call('HDEL', KEYS[2], unpack(extra))
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1`;

// One member of a bounded family: change its hash (adds, sets, then a window's counts), slide its expiry,
// weigh it in the family's index, and past the cap let the lightest go (at most 1,000 a call; the family
// never grows by more than one per call), their hashes deleted and their entries in the family's recent
// list too; then, when it stays, file it in that list if asked. Answers every field, or nil when the member
// itself had to go.
// KEYS: the member's hash, the index, the list's two keys (or the index again: no list).
// ARGV: member, ttl, weight field, cap, list? (1/0), window field, window number, adds, sets, window counts,
// listed? (1/0), its value, now (ms), then field/value pairs in that order.
const BOUNDED_UPDATE = `local key, index = KEYS[1], KEYS[2]
local member = ARGV[1]
local i = 14
for _ = 1, tonumber(ARGV[8]) do
  redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1])
  i = i + 2
end
for _ = 1, tonumber(ARGV[9]) do
  redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  i = i + 2
end
local counts = tonumber(ARGV[10])
if counts > 0 then
  local at = tonumber(ARGV[7])
  local current = tonumber(redis.call('HGET', key, ARGV[6]) or '')
  if current == nil or at > current then
    redis.call('HSET', key, ARGV[6], at)
    for _ = 1, counts do
      redis.call('HSET', key, ARGV[i], ARGV[i + 1])
      i = i + 2
    end
  elseif at == current then
    for _ = 1, counts do
      redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1])
      i = i + 2
    end
  end
end
redis.call('EXPIRE', key, ARGV[2])
redis.call('ZADD', index, tonumber(redis.call('HGET', key, ARGV[3]) or '0') or 0, member)
redis.call('EXPIRE', index, ARGV[2])
local over = redis.call('ZCARD', index) - tonumber(ARGV[4])
local kept = true
if over > 0 then
  local gone = redis.call('ZRANGE', index, 0, math.min(over, 1000) - 1)
  local prefix = string.sub(key, 1, #key - #member)
  for _, m in ipairs(gone) do
    redis.call('DEL', prefix .. m)
    if m == member then kept = false end
  end
  redis.call('ZREM', index, unpack(gone))
  if ARGV[5] == '1' then
    redis.call('ZREM', KEYS[3], unpack(gone))
    redis.call('HDEL', KEYS[4], unpack(gone))
  end
end
if not kept then return nil end
if ARGV[5] == '1' and ARGV[11] == '1' then
  redis.call('ZADD', KEYS[3], ARGV[13], member)
  redis.call('HSET', KEYS[4], member, ARGV[12])
  redis.call('EXPIRE', KEYS[3], ARGV[2])
  redis.call('EXPIRE', KEYS[4], ARGV[2])
end
return redis.call('HGETALL', key)`;

/** A recent list's values: beside its key, in the same slot (the key carries a hash tag: `recentPut`). */
const recentValues = (key: string) => `${key}:v`;

/**
 * Hot state in Redis (or Valkey), shared by every API node: one server, or a Redis Cluster. Keys are prefixed
 * `us:`. On a cluster every step stays within one slot: the Lua scripts name keys that share a hash tag
 * (`slots.ts`), and `del` of several keys deletes them one by one.
 */
export class RedisStore implements HotStore {
  readonly kind: 'redis' | 'redis-cluster';
  private readonly redis: RedisClient;

  /**
   * `prefix` leads every key (`us:`); another prefix keeps several stores apart in one Redis (tests). `tagKey`: the
   * deployment's key of address tags (`address-tag.ts`), the same on every node.
   */
  constructor(
    target: RedisTarget,
    prefix = 'us:',
    private readonly tagKey = '',
  ) {
    // A brace in the prefix would become every key's hash tag: one slot for everything.
    if (/[{}]/.test(prefix)) throw new Error(`a hot-store prefix has no braces: ${prefix}`);
    this.kind = isCluster(target) ? 'redis-cluster' : 'redis';
    // commandTimeout: a Redis that stops answering with its connection open sends no error of its own;
    // past it a command fails as if Redis were gone (routes that need it answer 503, budgets fail open).
    this.redis = connectRedis(target, {
      keyPrefix: prefix,
      maxRetriesPerRequest: 2,
      lazyConnect: false,
      protocol: 2,
      commandTimeout: 1000,
    });
    // Errors surface on the commands that fail; this stops unhandled 'error' events from crashing.
    this.redis.on('error', () => {});
  }

  tag(text: string) {
    return tagOf(this.tagKey, text);
  }

  async get(key: string) {
    return this.redis.get(key);
  }
  async set(key: string, value: string, ttlSeconds: number) {
    await this.redis.set(key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }
  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    return (await this.redis.set(key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)), 'NX')) === 'OK';
  }
  async del(...keys: string[]) {
    if (!keys.length) return;
    // A cluster deletes several keys in one command only within one slot: these need not share one.
    if (this.kind === 'redis-cluster') await Promise.all(keys.map((k) => this.redis.del(k)));
    else await this.redis.del(...keys);
  }
  async replaceIfEquals(key: string, expected: string, value: string, ttlSeconds: number) {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    return Number(await this.redis.eval(REPLACE_IF_EQUALS, 1, key, expected, value, ttl)) === 1;
  }
  async delIfEquals(key: string, expected: string) {
    return Number(await this.redis.eval(DEL_IF_EQUALS, 1, key, expected)) === 1;
  }
  async incr(key: string, ttlSeconds: number) {
    return Number(await this.redis.eval(INCR_WITH_TTL, 1, key, Math.max(1, Math.ceil(ttlSeconds))));
  }
  async ttl(key: string) {
    return this.redis.ttl(key);
  }
  async ping() {
    if (this.kind === 'redis') {
      await this.redis.ping();
      return;
    }
    // A cluster answers as a whole only while every slot has a master: none of them failed without a replica
    // taking over (a cluster that tolerates that, `cluster-require-full-coverage no`, still says state ok).
    const info = String(await this.redis.cluster('INFO'));
    if (!/cluster_state:ok/.test(info) || !/cluster_slots_fail:0\b/.test(info))
      throw new Error('Redis Cluster: not every slot is served');
  }
  async close() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
  async acquireSlot(key: string, holder: string, limit: number, ttlSeconds: number) {
    const now = Date.now();
    const ttlMs = Math.max(1, Math.ceil(ttlSeconds * 1000));
    return Number(await this.redis.eval(ACQUIRE_SLOT, 1, key, now, now + ttlMs, limit, holder, ttlMs)) === 1;
  }
  async releaseSlot(key: string, holder: string) {
    await this.redis.zrem(key, holder);
  }
  async decrBy(key: string, by: number) {
    return Number(await this.redis.eval(DECR_FLOORED, 1, key, by));
  }
  async hincrBy(key: string, field: string, by: number, ttlSeconds: number) {
    return Number(await this.redis.eval(HINCR_WITH_TTL, 1, key, field, by, Math.max(1, Math.ceil(ttlSeconds))));
  }
  async hgetall(key: string) {
    return this.redis.hgetall(key);
  }
  async hupdate(key: string, change: { add?: Record<string, number>; set?: Record<string, number> }, ttlSeconds: number) {
    const adds = Object.entries(change.add ?? {});
    const sets = Object.entries(change.set ?? {});
    const args = [...adds, ...sets].flatMap(([f, v]) => [f, Math.trunc(v)]);
    const flat = (await this.redis.eval(HUPDATE, 1, key, Math.max(1, Math.ceil(ttlSeconds)), adds.length, ...args)) as string[];
    const out: Record<string, number> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] as string] = Number(flat[i + 1]);
    return out;
  }
  async recentPut(key: string, member: string, value: string, cap: number, maxAgeSeconds: number) {
    assertOneSlot('recentPut', [key, recentValues(key)]);
    const maxAgeMs = Math.max(1, Math.ceil(maxAgeSeconds * 1000));
    await this.redis.eval(RECENT_PUT, 2, key, recentValues(key), Date.now(), member, value, cap, maxAgeMs);
  }
  async recentList(key: string, limit: number, maxAgeSeconds: number): Promise<RecentEntry[]> {
    if (limit < 1) return [];
    const cutoff = Date.now() - maxAgeSeconds * 1000;
    const flat = await this.redis.zrevrangebyscore(key, '+inf', `(${cutoff}`, 'WITHSCORES', 'LIMIT', 0, limit);
    const seen: { member: string; at: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) seen.push({ member: flat[i] as string, at: Number(flat[i + 1]) });
    const values: (string | null)[] = [];
    for (let i = 0; i < seen.length; i += 1000) {
      values.push(...(await this.redis.hmget(recentValues(key), ...seen.slice(i, i + 1000).map((s) => s.member))));
    }
    return seen.flatMap((s, i) => (values[i] == null ? [] : [{ member: s.member, value: values[i] as string, at: s.at }]));
  }
  async boundedUpdate(
    family: BoundedFamily,
    member: string,
    change: BoundedChange,
    ttlSeconds: number,
  ): Promise<Record<string, number> | null> {
    const pairs = (r: Record<string, number> | undefined) => Object.entries(r ?? {});
    const adds = pairs(change.add);
    const sets = pairs(change.set);
    const counts = pairs(change.window?.add);
    const list = family.list;
    assertOneSlot('boundedUpdate', familyKeys(family));
    const flat = (await this.redis.eval(
      BOUNDED_UPDATE,
      4,
      family.prefix + member,
      family.index,
      list ?? family.index,
      list ? recentValues(list) : family.index,
      member,
      Math.max(1, Math.ceil(ttlSeconds)),
      family.weight,
      Math.max(0, Math.floor(family.cap)),
      list ? 1 : 0,
      change.window?.field ?? '',
      Math.trunc(change.window?.at ?? 0),
      adds.length,
      sets.length,
      counts.length,
      change.listed === undefined ? 0 : 1,
      change.listed ?? '',
      Date.now(),
      ...[...adds, ...sets, ...counts].flatMap(([f, v]) => [f, Math.trunc(v)]),
    )) as string[] | null;
    if (!flat) return null;
    const out: Record<string, number> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] as string] = Number(flat[i + 1]);
    return out;
  }
}
