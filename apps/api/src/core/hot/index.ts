import { MemoryStore } from './memory.ts';
import { RedisStore } from './redis.ts';
import type { HotStore } from './store.ts';

export type { HotStore };
export { MemoryStore, RedisStore };

export function createHotStore(redisUrl: string | undefined): HotStore {
  return redisUrl ? new RedisStore(redisUrl) : new MemoryStore();
}
