// The budget of an API token's calls per minute, on the faces that take tokens: MCP (MCP_CALLS_PER_MINUTE, each
// batch member counts) and REST (REST_CALLS_PER_MINUTE). Counted first and atomically in the hot store, so every
// node shares it.
import { tooMany } from '../core/errors.ts';
import type { HotStore } from '../core/hot/store.ts';

export const MCP_CALLS_PER_MINUTE = 600;

/**
 * Counts `calls` against the token's one-minute window on `face` (`mcp-rate:` and `rest-rate:` keys). Returns the
 * 429 to answer when the window is full, else undefined.
 */
export async function tokenRateRefusal(hot: HotStore, face: 'mcp' | 'rest', tokenId: string, calls: number, limit: number) {
  const key = `${face}-rate:${tokenId}`;
  const counts = await Promise.all(Array.from({ length: calls }, () => hot.incr(key, 60)));
  if (Math.max(...counts) <= limit) return undefined;
  const ttl = await hot.ttl(key);
  const wait = ttl > 0 ? ttl : 60;
  const what = face === 'mcp' ? 'MCP calls' : 'requests with this token';
  return tooMany(wait, `Too many ${what}: at most ${limit} a minute per token; wait ${wait} seconds, then try again`);
}
