import { classifyUserAgent } from '@us/protection';
import type { VerifyAnswer, VerifyRequest } from '@us/shared';
import type { Deps } from '../../core/deps.ts';
import { lookupWait, VERIFICATION, verifyCrawler } from './crawler-verification.ts';

/**
 * POST {COLLECT_URL}/verify: the service's verdict on a declared crawler at an address, for an edge whose
 * platform gives none, within the edge's budget (a lookup still running then answers `unknown` with
 * `maxAgeSeconds: 0`, goes on and is cached for the edge's next question).
 */
export async function verifyRequest(deps: Pick<Deps, 'env' | 'hot'>, siteId: string, req: VerifyRequest): Promise<VerifyAnswer> {
  const ua = classifyUserAgent(req.ua);
  if (ua.kind !== 'bot' || !ua.bot) return { verification: 'unknown', bot: null, maxAgeSeconds: VERIFICATION.cacheSeconds };
  const verdict = await verifyCrawler(deps, siteId, ua.bot, req.ip, lookupWait(req.budgetMs));
  return { ...verdict, bot: ua.bot.name };
}
