import type { Deps } from '../../core/deps.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { sha256 } from '../../core/security/tokens.ts';

/**
 * Challenges that could not send their visitor to the check because the hostname is not one a check may
 * return to (not a verified hostname of the site, nor a live proxy hostname): a setup problem the
 * Protection page names ("verify hostname X to challenge visitors on it"). Noted by the decide endpoint and
 * the request-batch intake (records carrying `noReturnHost`), read by the decisions report.
 *
 * A hostname is whatever the visitor sent, so its text is never kept: the hot store holds, per site, a
 * bounded list of recently seen hostnames by their hash; the report names only hostnames registered on the
 * site (it hashes those to find them) and counts the others.
 */
export const NO_RETURN = {
  /** Hostnames kept per site at most (the longest unseen leave first). */
  cap: 200,
  /** How long a hostname is remembered after its last no-return challenge. */
  maxAgeSeconds: 7 * 86_400,
  /** A node notes one hostname of one site at most this often. */
  noteEveryMs: 60_000,
  /** Noting never takes longer than this (the hot store may be slow or gone). */
  budgetMs: 200,
} as const;

/** A no-return challenge's reason, in the edge SDK's own words (one text for both paths). */
export { noReturnReason } from '@unseen-stats/edge/protect';

// The site is the hash tag: the list and its values live in one slot of a Redis Cluster (core/hot/slots.ts).
const listKey = (siteId: string) => `no-return:{${siteId}}`;
const memberOf = (hostname: string) => sha256(hostname.toLowerCase()).slice(0, 32);

/** When this node last noted a (site, hostname); bounded, cleared when full. */
const notedAt = new Map<string, number>();
const NOTED_MAX = 10_000;

/**
 * Notes no-return challenges of a site on these hostnames; resolves within the budget, never rejects (the
 * gate fails open, and this is only for the report).
 */
export function noteNoReturn(deps: Pick<Deps, 'hot'>, siteId: string, hostnames: Iterable<string>, now = Date.now()) {
  const writes: Promise<void>[] = [];
  for (const hostname of new Set([...hostnames].map((h) => h.toLowerCase()))) {
    const id = `${siteId}\n${hostname}`;
    if ((notedAt.get(id) ?? 0) > now - NO_RETURN.noteEveryMs) continue;
    if (notedAt.size >= NOTED_MAX) notedAt.clear();
    notedAt.set(id, now);
    writes.push(deps.hot.recentPut(listKey(siteId), memberOf(hostname), '1', NO_RETURN.cap, NO_RETURN.maxAgeSeconds));
  }
  if (writes.length === 0) return Promise.resolve();
  return hotAnswer(
    deps.hot,
    Promise.all(writes).then(() => undefined),
    NO_RETURN.budgetMs,
    undefined,
  );
}

export interface NoReturnSeen {
  /** Registered hostnames of the site with no-return challenges lately, with the last one's time (epoch ms). */
  registered: Map<string, number>;
  /** Other hostnames (not on the site) with no-return challenges lately: counted, never named. */
  others: number;
}

/** What the site's no-return challenges of the last days show, against its registered hostnames. */
export async function noReturnSeen(deps: Pick<Deps, 'hot'>, siteId: string, hostnames: readonly string[]): Promise<NoReturnSeen> {
  const entries = await hotAnswer(
    deps.hot,
    deps.hot.recentList(listKey(siteId), NO_RETURN.cap, NO_RETURN.maxAgeSeconds),
    NO_RETURN.budgetMs,
    [],
  );
  const byMember = new Map(hostnames.map((h) => [memberOf(h), h.toLowerCase()]));
  const registered = new Map<string, number>();
  let others = 0;
  for (const e of entries) {
    const hostname = byMember.get(e.member);
    if (hostname) registered.set(hostname, e.at);
    else others += 1;
  }
  return { registered, others };
}
