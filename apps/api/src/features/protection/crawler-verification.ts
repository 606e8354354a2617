import type { BotInfo, Verification } from '@us/protection';
import type { Deps } from '../../core/deps.ts';
import type { HotStore } from '../../core/hot/store.ts';
import { answerWithin, hotAnswer } from '../../core/hot/within.ts';
import { parseDnsServers } from '../hostnames/index.ts';
import { crawlerCheck } from './crawler-checks.ts';
import { forwardConfirmed } from './crawler-dns.ts';
import { inPublishedRanges } from './crawler-ranges.ts';
import { networkShare, takeLookupSlot, withinLookupBudget } from './verification-budget.ts';

/**
 * Whether a declared crawler at an address is who it says (where the edge platform gives no verdict:
 * proxy mode, the edge SDK without bot management, other platforms): by the operator's published IP
 * ranges first, then by forward-confirmed reverse DNS under its documented domains (`crawler-checks.ts`).
 *
 * Answers within the caller's wait: a lookup that takes longer goes on in the background and its verdict
 * is cached, so the next request from that address is decided with it.
 */
export const VERIFICATION = {
  /** A lookup's own limit (reverse and forward questions), in the background; past it, `unknown`. */
  lookupMs: 1000,
  /** Without a caller's budget, a lookup is waited for this long. */
  defaultWaitMs: 300,
  /** Of a caller's budget, the share spent waiting for a lookup (the rest carries the answer back). */
  waitShare: 0.6,
  /** `verified` and `failed` are kept this long in the hot store (shared by the nodes)… */
  cacheSeconds: 86_400,
  /** …and this long on each node. */
  localMs: 10 * 60_000,
  /** `unknown` from DNS that did not answer is kept this short (everywhere), so a flapping DNS is asked again. */
  unknownSeconds: 60,
} as const;

/** A verdict and how long whoever asked may keep it (0: ask again next time, the answer is still coming). */
export interface CrawlerVerdict {
  verification: Verification;
  maxAgeSeconds: number;
}

/** How long a caller waits for a lookup, given its own budget (none: the default). */
export function lookupWait(budgetMs: number | undefined): number {
  if (budgetMs === undefined) return VERIFICATION.defaultWaitMs;
  return Math.min(VERIFICATION.lookupMs, Math.max(0, Math.floor(budgetMs * VERIFICATION.waitShare)));
}

/** Addresses are never kept: a verdict is filed under a tag of the address and the operator's group. */
const cacheKey = (hot: HotStore, ip: string, group: string) => `fcrdns:${hot.tag(`${ip}\n${group}`)}`;

const local = new Map<string, { verdict: Verification; until: number }>();
/** `nothing-learnt`: a lookup turned away by the budgets, or one that failed on our side. */
type Outcome = Verification | 'nothing-learnt';
/** Lookups under way, by cache key: a second caller waits for the same one. */
const pending = new Map<string, Promise<Outcome>>();

const FINAL = (verification: Verification): CrawlerVerdict => ({ verification, maxAgeSeconds: VERIFICATION.cacheSeconds });
const NOT_YET: CrawlerVerdict = { verification: 'unknown', maxAgeSeconds: 0 };

function remember(key: string, verdict: Verification) {
  if (local.size >= 10_000) local.clear();
  const keep = verdict === 'unknown' ? VERIFICATION.unknownSeconds * 1000 : VERIFICATION.localMs;
  local.set(key, { verdict, until: Date.now() + keep });
}

const asVerdict = (verification: Verification): CrawlerVerdict =>
  verification === 'unknown' ? { verification, maxAgeSeconds: VERIFICATION.unknownSeconds } : FINAL(verification);

/**
 * The verdict on `bot` at `ip` for a request to `siteId`, waiting at most `waitMs` for a lookup:
 * - `verified` inside the operator's published ranges (no DNS), or by forward-confirmed reverse DNS;
 * - `failed` when DNS said no, or outside the ranges of an operator that publishes ranges only;
 * - `unknown` for a bot without a published way to check it, when DNS did not answer, when the lookup is
 *   still running at `waitMs` (it finishes and is cached), or past the lookup budgets
 *   (`verification-budget.ts`: the client network's share, the site's, the node's slots).
 */
export async function verifyCrawler(
  deps: Pick<Deps, 'env' | 'hot'>,
  siteId: string,
  bot: BotInfo,
  ip: string,
  waitMs: number = VERIFICATION.defaultWaitMs,
): Promise<CrawlerVerdict> {
  const check = crawlerCheck(bot.name);
  if (!check) return FINAL('unknown');
  if (check.ranges && inPublishedRanges(ip, check.ranges)) return FINAL('verified');
  if (!check.domains) return FINAL(check.ranges ? 'failed' : 'unknown');
  const started = Date.now();
  const key = cacheKey(deps.hot, ip, check.id);
  const hit = local.get(key);
  if (hit && hit.until > started) return asVerdict(hit.verdict);
  // Another node's verdict is worth a few milliseconds even to a caller in a hurry.
  const shared = await hotAnswer(deps.hot, deps.hot.get(key), Math.min(50, Math.max(10, waitMs)), null);
  if (shared === 'verified' || shared === 'failed' || shared === 'unknown') {
    remember(key, shared);
    return asVerdict(shared);
  }
  let run = pending.get(key);
  if (!run) {
    const share = networkShare(deps.hot, ip, siteId);
    const release = takeLookupSlot(share, siteId);
    if (!release) return NOT_YET;
    const domains = check.domains;
    run = (async (): Promise<Outcome> => {
      try {
        if (!(await withinLookupBudget(deps, siteId, share))) return 'nothing-learnt';
        const verdict = await forwardConfirmed(parseDnsServers(deps.env.DNS_SERVERS), ip, domains, VERIFICATION.lookupMs);
        remember(key, verdict);
        const ttl = verdict === 'unknown' ? VERIFICATION.unknownSeconds : VERIFICATION.cacheSeconds;
        deps.hot.set(key, verdict, ttl).catch(() => {});
        return verdict;
      } catch {
        return 'nothing-learnt';
      } finally {
        release();
        pending.delete(key);
      }
    })();
    pending.set(key, run);
  }
  const outcome = await answerWithin<Outcome | 'waiting'>(run, waitMs - (Date.now() - started), 'waiting');
  return outcome === 'waiting' || outcome === 'nothing-learnt' ? NOT_YET : asVerdict(outcome);
}
