import { MemoryStore } from './memory.ts';
import { RedisStore } from './redis.ts';
import type { RedisTarget } from './redis-connection.ts';
import type { HotStore } from './store.ts';

export { redisTargetOf } from './redis-connection.ts';
export type { HotStore, RedisTarget };
export { MemoryStore, RedisStore };

/**
 * Redis (one server or a cluster) when the settings name one, else in-process state (one node only); client addresses
 * in its keys are tagged with `tagKey` (`tagKeyOf(APP_SECRET)`).
 */
export function createHotStore(redis: RedisTarget | undefined, tagKey: string): HotStore {
  return redis ? new RedisStore(redis, 'us:', tagKey) : new MemoryStore(Date.now, tagKey);
}
