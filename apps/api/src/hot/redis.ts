import { Redis } from 'ioredis';
import type { HotStore } from './store.ts';

// INCR, and set the expiry only when the counter is new: a fixed window.
const INCR_WITH_TTL = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** Hot state in Redis (or Valkey), shared by every API node. Keys are prefixed `us:`. */
export class RedisStore implements HotStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { keyPrefix: 'us:', maxRetriesPerRequest: 2, lazyConnect: false, protocol: 2 });
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
}
