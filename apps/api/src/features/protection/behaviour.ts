import { utcDay } from '@us/db';
import type { Deps } from '../../core/deps.ts';
import type { BoundedFamily, HotStore } from '../../core/hot/store.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { failedChecks } from './failed-checks.ts';
import { flaggedKey, type MemoryBounds, memoryFamily, memoryKey } from './memory-families.ts';
import { TLS_MISMATCH } from './tls.ts';

/**
 * Behaviour memory (spec §2, §8): what each visitor of a site did in the last day, filed under its daily code
 * (`visitor-code.ts`) in the hot store, never with an address or a user agent, and deleted 24 hours after the
 * visitor's last request by the store's own expiry (each change slides it; no job sweeps).
 *
 * Signs, each an automation sign of the decision order's step 6 (two of them challenge a browser):
 * - `burst`: more than 30 page requests, or 600 requests of any kind, in one minute;
 * - `no-script`: 5 or more HTML pages in the day and not one page-script report, on a site whose page script
 *   reports (a site without the script would flag everyone);
 * - `tls-mismatch`: a user agent claiming a modern browser over TLS older than 1.2 or with a client hello
 *   unlike a browser's;
 * - `failed-check`: the visitor failed the check page (`failed-checks.ts`).
 * User-agent signs (headless-chrome, …) are not remembered: every request brings its user agent, and the
 * code is bound to it, so they are seen anew each time.
 *
 * Bounded (docs/operations/limits.md): a site remembers at most `BEHAVIOUR_VISITORS_PER_SITE` visitors a
 * day, the busiest by requests seen (the hot store's `boundedUpdate`: counted and trimmed in one atomic step),
 * so a flood of made-up address and user-agent pairs pushes out only the lightest visitors, never the busy
 * ones that carry signs; the in-process store keeps at most `BEHAVIOUR_VISITORS_PER_NODE` over all sites.
 * A visitor that leaves memory leaves the flagged list with it.
 *
 * Fed by the collector from edge request batches and page reports, a few hot-store operations per visitor
 * per batch, failing open (past `BUDGET_MS` or on any failure nothing is remembered and nothing is held up).
 * Read by the decide endpoint for one visitor and by the protection config as the list of flagged visitors.
 */
export const BEHAVIOUR = {
  memorySeconds: 86_400,
  burstPagesPerMinute: 30,
  burstRequestsPerMinute: 600,
  noScriptPages: 5,
  /** Visitors listed in the protection config at most (the most recently flagged). */
  flagged: 10_000,
  /** A flagged visitor's entry is refreshed at most this often (and whenever its signs change). */
  relistSeconds: 600,
  /** Records older than this feed no memory (a batch arrives seconds after its requests). */
  recentMs: 10 * 60_000,
  budgetMs: 250,
} as const;

export const SIGNS = ['burst', 'no-script', TLS_MISMATCH, 'failed-check'] as const;
export type Sign = (typeof SIGNS)[number];

const scriptKey = (siteId: string) => `bm-script:${siteId}`;

// ---------- does the site's page script report? ----------

const SCRIPT_MARK_SECONDS = 2 * 86_400;
const scriptMarked = new Map<string, number>();
const scriptKnown = new Map<string, { runs: boolean; until: number }>();

/** Notes that the site's page script reports (at most every ten minutes per node). */
async function markScript(hot: HotStore, siteId: string, now: number) {
  if (scriptKnown.size >= 10_000) scriptKnown.clear();
  scriptKnown.set(siteId, { runs: true, until: now + 60_000 });
  if ((scriptMarked.get(siteId) ?? 0) > now - 600_000) return;
  if (scriptMarked.size >= 10_000) scriptMarked.clear();
  scriptMarked.set(siteId, now);
  await hot.set(scriptKey(siteId), '1', SCRIPT_MARK_SECONDS);
}

/** Whether the site's page script reported in the last two days (read at most once a minute per node). */
async function siteRunsScript(hot: HotStore, siteId: string, now: number): Promise<boolean> {
  const hit = scriptKnown.get(siteId);
  if (hit && hit.until > now) return hit.runs;
  const runs = (await hot.get(scriptKey(siteId))) !== null;
  if (scriptKnown.size >= 10_000) scriptKnown.clear();
  scriptKnown.set(siteId, { runs, until: now + 60_000 });
  return runs;
}

// ---------- signs ----------

const num = (v: unknown) => Number(v ?? 0) || 0;

/** The signs a visitor's memory shows. */
function signsOf(fields: Record<string, number | string>, runsScript: boolean, failed: number): Sign[] {
  const signs: Sign[] = [];
  if (num(fields.burst) > 0) signs.push('burst');
  if (runsScript && num(fields.pages) >= BEHAVIOUR.noScriptPages && num(fields.script) === 0) signs.push('no-script');
  if (num(fields.tls) > 0) signs.push(TLS_MISMATCH);
  if (failed > 0) signs.push('failed-check');
  return signs;
}

const maskOf = (signs: readonly Sign[]) => signs.reduce((m, s) => m | (1 << SIGNS.indexOf(s)), 0);

/** The visitor's signs of the last day, for the decide endpoint; [] past `budgetMs` or on failure. */
export function visitorSigns(deps: Pick<Deps, 'hot'>, siteId: string, code: string, budgetMs = 50): Promise<Sign[]> {
  const now = Date.now();
  const read = Promise.all([
    deps.hot.hgetall(memoryKey(siteId, code)),
    siteRunsScript(deps.hot, siteId, now),
    failedChecks(deps, siteId, code),
  ]).then(([fields, runs, failed]) => signsOf(fields, runs, failed));
  return hotAnswer(deps.hot, read, budgetMs, []);
}

// ---------- feeding ----------

/** What one edge batch showed of one visitor in one minute. */
export interface Seen {
  code: string;
  /** Epoch minute of the requests. */
  minute: number;
  requests: number;
  pages: number;
  tlsMismatch: boolean;
}

type FeedDeps = Pick<Deps, 'hot' | 'logger'> & { env: MemoryBounds };

/**
 * Lists a visitor with its signs in today's flagged list (the protection config's `flagged`), in the same
 * step as its memory: only while memory keeps it, and it leaves the list when memory lets it go.
 */
function flag(hot: HotStore, family: BoundedFamily, code: string, signs: readonly Sign[], now: number) {
  return hot.boundedUpdate(
    family,
    code,
    { set: { listed: Math.floor(now / 1000), lmask: maskOf(signs) }, listed: signs.join(',') },
    BEHAVIOUR.memorySeconds,
  );
}

async function noteVisitor(deps: FeedDeps, siteId: string, seen: Seen, runsScript: boolean, now: number) {
  const family = memoryFamily(deps.env, siteId, utcDay(now));
  const [fields, failed] = await Promise.all([
    deps.hot.boundedUpdate(
      family,
      seen.code,
      {
        add: { n: seen.requests, pages: seen.pages },
        set: seen.tlsMismatch ? { tls: 1 } : {},
        // This minute's pace (`m` the epoch minute, `mn` requests, `mp` pages), for `burst`.
        window: { field: 'm', at: seen.minute, add: { mn: seen.requests, mp: seen.pages } },
      },
      BEHAVIOUR.memorySeconds,
    ),
    failedChecks(deps, siteId, seen.code),
  ]);
  // Not among the site's busiest visitors today: not remembered.
  if (!fields) return;
  const burst = num(fields.mp) > BEHAVIOUR.burstPagesPerMinute || num(fields.mn) > BEHAVIOUR.burstRequestsPerMinute;
  if (burst && !num(fields.burst)) {
    if (!(await deps.hot.boundedUpdate(family, seen.code, { set: { burst: 1 } }, BEHAVIOUR.memorySeconds))) return;
    fields.burst = 1;
  }
  const signs = signsOf(fields, runsScript, failed);
  // Never flagged, or listed already without signs: nothing to say.
  if (!signs.length && !num(fields.lmask)) return;
  const stale = num(fields.listed) < Math.floor(now / 1000) - BEHAVIOUR.relistSeconds;
  if (stale || num(fields.lmask) !== maskOf(signs)) await flag(deps.hot, family, seen.code, signs, now);
}

/**
 * Files what an edge batch showed of each visitor (grouped by code and minute by the caller; a visitor's
 * minutes in order, so a batch spanning two minutes counts both). Never throws and never takes longer than
 * `budgetMs`: memory is a hint, the records are what must be stored.
 */
export async function noteRequests(deps: FeedDeps, siteId: string, seen: Seen[], now = Date.now()) {
  if (!seen.length) return;
  const byCode = new Map<string, Seen[]>();
  for (const s of seen) byCode.set(s.code, [...(byCode.get(s.code) ?? []), s]);
  const work = (async () => {
    const runsScript = await siteRunsScript(deps.hot, siteId, now);
    await Promise.all(
      [...byCode.values()].map(async (minutes) => {
        for (const s of minutes.sort((a, b) => a.minute - b.minute)) await noteVisitor(deps, siteId, s, runsScript, now);
      }),
    );
  })();
  await hotAnswer(
    deps.hot,
    work.catch((e) => deps.logger.debug(`behaviour memory not updated (${String(e)})`)),
    BEHAVIOUR.budgetMs,
    undefined,
  );
}

/**
 * Files a page-script report of the visitor (it runs scripts; the report counts as one request seen), and
 * that the site's script reports.
 */
export async function notePageScript(deps: FeedDeps, siteId: string, code: string, now = Date.now()) {
  const family = memoryFamily(deps.env, siteId, utcDay(now));
  const work = Promise.all([
    deps.hot.boundedUpdate(family, code, { add: { n: 1, script: 1 } }, BEHAVIOUR.memorySeconds),
    markScript(deps.hot, siteId, now),
  ]);
  await hotAnswer(
    deps.hot,
    work.catch((e) => deps.logger.debug(`behaviour memory not updated (${String(e)})`)),
    BEHAVIOUR.budgetMs,
    undefined,
  );
}

/** Today's flagged visitors of a site, most recently flagged first, at most `BEHAVIOUR.flagged`: code → signs. */
export async function flaggedVisitors(hot: HotStore, siteId: string, now = Date.now()): Promise<Record<string, string[]>> {
  const list = await hot.recentList(flaggedKey(siteId, utcDay(now)), BEHAVIOUR.flagged, BEHAVIOUR.memorySeconds);
  const out: Record<string, string[]> = {};
  for (const e of list) {
    // A visitor whose signs went (its page script reported after all) is listed without any: left out.
    const signs = e.value.split(',').filter(Boolean);
    if (signs.length) out[e.member] = signs;
  }
  return out;
}
