// The budget of an API token's calls per minute, on the faces that take tokens: MCP (MCP_CALLS_PER_MINUTE, each
// batch member counts) and REST (REST_CALLS_PER_MINUTE). Counted first and atomically in the hot store, so every
// node shares it.
import type { Deps } from '../core/deps.ts';
import { type AppError, tooMany } from '../core/errors.ts';
import type { HotStore } from '../core/hot/store.ts';
import type { Ctx } from '../procedures/context.ts';

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

/**
 * The 429 for `calls` made with an API token past its REST minute (REST, and the dashboard's face when a token is
 * sent there), or undefined. A credential that is no live token is left to the operation's own check (its 401); a
 * count that fails (the hot store unreachable) lets the request through.
 */
export async function restTokenRefusal(
  deps: Pick<Deps, 'hot' | 'env'>,
  reqCtx: Ctx,
  calls: number,
): Promise<AppError | undefined> {
  const actor = await reqCtx.resolveActor().catch(() => null);
  if (actor?.type !== 'token') return undefined;
  return tokenRateRefusal(deps.hot, 'rest', actor.token.id, calls, deps.env.REST_CALLS_PER_MINUTE).catch(() => undefined);
}
