import type { HotStore } from './store.ts';
import { hotAnswer } from './within.ts';

/**
 * One counter in the hot store for "some site changed" (settings, hostnames, keys, the site itself), and beside
 * it which site each step of the counter was for. Every successful `sites:write` operation bumps it; nodes compare
 * it at most about once a second (faces/collect/site-cache.ts, features/hostnames/proxy-route.ts) and forget what
 * they hold of the sites that changed, so a deleted key or hostname stops being accepted within about a second on
 * every node, without a hot-store round trip per report. Only when a step's site is not known (an operation naming none, a
 * store that lost the list, more steps than it keeps) do they forget everything: before, every step did, so one
 * tenant editing annotations in a loop sent every tenant's reports and gate decisions to the database.
 */
export const GENERATION_KEY = 'sites:generation';
export const GENERATION_TTL_SECONDS = 30 * 86_400;
/** The sites of the counter's last steps (member: the step, value: the site ids), in one slot. */
const CHANGES_KEY = 'sites:changes:{sites-changes}';
/** Steps kept (a node a second behind sees every one unless the service changes sites faster than this a second). */
const CHANGES_KEPT = 1_000;
const CHANGES_AGE_SECONDS = 600;
/** A step whose sites are not named (or too many to name): every site. */
const EVERY_SITE = '*';
const SITES_NAMED = 100;

/** Bumps the counter for `siteIds` (every site when not given). */
export async function bumpSitesGeneration(hot: HotStore, siteIds?: readonly string[]): Promise<void> {
  const step = await hot.incr(GENERATION_KEY, GENERATION_TTL_SECONDS);
  const named = siteIds?.length && siteIds.length <= SITES_NAMED ? siteIds.join(',') : EVERY_SITE;
  await hot.recentPut(CHANGES_KEY, String(step), named, CHANGES_KEPT, CHANGES_AGE_SECONDS);
}

/** Every site changed, or nothing is known of what did. */
export const EVERY = 'every';

/**
 * The sites that changed from step `from` to step `to` of the counter (as read from the hot store), or EVERY when
 * that cannot be told: no earlier step read, the counter started again, a step not (or not yet) listed, or the
 * list not read within `waitMs`.
 */
export async function sitesChangedBetween(
  hot: HotStore,
  from: string | null | undefined,
  to: string | null,
  waitMs = 200,
): Promise<ReadonlySet<string> | typeof EVERY> {
  const [a, b] = [Number(from), Number(to)];
  if (from == null || to == null || !Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return EVERY;
  if (b <= a || b - a > CHANGES_KEPT) return EVERY;
  const listed = await hotAnswer(hot, hot.recentList(CHANGES_KEY, CHANGES_KEPT, CHANGES_AGE_SECONDS), waitMs, null);
  if (!listed) return EVERY;
  const byStep = new Map(listed.map((e) => [e.member, e.value]));
  const sites = new Set<string>();
  for (let step = a + 1; step <= b; step++) {
    const named = byStep.get(String(step));
    if (named === undefined || named === EVERY_SITE) return EVERY;
    for (const id of named.split(',')) sites.add(id);
  }
  return sites;
}
