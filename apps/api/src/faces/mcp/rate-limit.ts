import { tooMany } from '../../core/errors.ts';
import type { HotStore } from '../../core/hot/store.ts';

export const MCP_CALLS_PER_MINUTE = 600;

/**
 * Counts `calls` messages against the token's one-minute window (each member of a batch counts).
 * Returns the 429 to answer when the window is full, else undefined.
 */
export async function checkRateLimit(hot: HotStore, tokenId: string, calls: number, limit = MCP_CALLS_PER_MINUTE) {
  const key = `mcp-rate:${tokenId}`;
  const counts = await Promise.all(Array.from({ length: calls }, () => hot.incr(key, 60)));
  if (Math.max(...counts) <= limit) return undefined;
  const ttl = await hot.ttl(key);
  const wait = ttl > 0 ? ttl : 60;
  return tooMany(wait, `Too many MCP calls: at most ${limit} a minute per token; wait ${wait} seconds, then try again`);
}
