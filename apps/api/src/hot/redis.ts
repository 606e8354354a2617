import { Redis } from 'ioredis';
import type { HotStore } from './store.ts';

// INCR, and set the expiry only when the counter is new: a fixed window.
const INCR_WITH_TTL = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

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

/** Hot state in Redis (or Valkey), shared by every API node. Keys are prefixed `us:`. */
export class RedisStore implements HotStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;

  /** `prefix` leads every key (`us:`); another prefix keeps several stores apart in one Redis (tests). */
  constructor(url: string, prefix = 'us:') {
    this.redis = new Redis(url, { keyPrefix: prefix, maxRetriesPerRequest: 2, lazyConnect: false, protocol: 2 });
    // Errors surface on the commands that fail; this stops unhandled 'error' events from crashing.
    this.redis.on('error', () => {});
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
    if (keys.length) await this.redis.del(...keys);
  }
  async incr(key: string, ttlSeconds: number) {
    return Number(await this.redis.eval(INCR_WITH_TTL, 1, key, Math.max(1, Math.ceil(ttlSeconds))));
  }
  async ttl(key: string) {
    return this.redis.ttl(key);
  }
  async ping() {
    await this.redis.ping();
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
}
