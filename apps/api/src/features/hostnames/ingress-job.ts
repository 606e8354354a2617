import { type Orm, SiteHostname } from '@us/db';
import type { Deps } from '../../core/deps.ts';
import { bumpSitesGeneration } from '../../core/hot/generations.ts';
import type { Logger } from '../../core/logger.ts';
import { goLive, INGRESS_PENDING } from './go-live.ts';
import { checkIngress, ingressDns } from './ingress-check.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How often a pending proxy hostname's records are looked up, by its age: those added in the last hour
 * are being set up now (every run, a minute apart); the longer one stays pending, the less often.
 */
export const INGRESS_CHECK_SCHEDULE: readonly { youngerThanMs: number; everyMs: number }[] = [
  { youngerThanMs: HOUR, everyMs: MINUTE },
  { youngerThanMs: DAY, everyMs: 10 * MINUTE },
  { youngerThanMs: 30 * DAY, everyMs: HOUR },
  { youngerThanMs: Number.POSITIVE_INFINITY, everyMs: DAY },
];
/** Hostnames checked in one run at most (newest first); the rest wait for the next run. */
export const INGRESS_CHECKS_PER_RUN = 50;
/** Pending hostnames a run reads at most, to find the ones due. */
const ROWS_PER_RUN = 2000;
/** Hostnames checked at the same time (each check is two to six DNS questions). */
const PARALLEL = 5;

export type IngressJobSetup = Pick<Deps, 'env' | 'urls' | 'hot'>;

export interface IngressRun {
  checked: number;
  live: string[];
}

const everyFor = (ageMs: number) => (INGRESS_CHECK_SCHEDULE.find((s) => ageMs < s.youngerThanMs) ?? { everyMs: DAY }).everyMs;

/**
 * Claims the hostname's check for the current period of its schedule (counted from its creation): true
 * for the one run, on whichever node, that gets it. A run a minute later is in the next period.
 */
async function claim(setup: IngressJobSetup, row: SiteHostname, now: number): Promise<boolean> {
  const age = Math.max(0, now - row.createdAt.getTime());
  const every = everyFor(age);
  const period = Math.floor(age / every);
  const key = `hostnames:ingress-check:${row.site.id}:${row.hostname}:${every}:${period}`;
  return setup.hot.setIfAbsent(key, '1', Math.ceil((2 * every) / 1000));
}

/**
 * The job: looks up the records of pending proxy-mode hostnames without an edge platform (the built-in
 * ingress) and makes live those whose TXT record and CNAME (or flattened addresses) are in place. A failed
 * lookup leaves the hostname pending until its next check.
 */
export async function runIngressChecks(
  orm: Orm,
  setup: IngressJobSetup,
  opts: { logger?: Logger | undefined; siteIds?: string[] | undefined; now?: Date | undefined } = {},
): Promise<IngressRun> {
  const now = (opts.now ?? new Date()).getTime();
  const em = orm.em.fork();
  const rows = await em.find(
    SiteHostname,
    {
      proxy: true,
      edgeId: null,
      edgeStatus: INGRESS_PENDING,
      ...(opts.siteIds ? { site: { $in: opts.siteIds } } : {}),
    },
    { orderBy: { createdAt: 'desc', hostname: 'asc' }, limit: ROWS_PER_RUN },
  );
  const due: SiteHostname[] = [];
  for (const row of rows) {
    if (due.length >= INGRESS_CHECKS_PER_RUN) break;
    if (await claim(setup, row, now)) due.push(row);
  }

  const dns = ingressDns(setup);
  const live: string[] = [];
  for (let i = 0; i < due.length; i += PARALLEL) {
    await Promise.all(
      due.slice(i, i + PARALLEL).map(async (row) => {
        const check = await checkIngress(dns, row.hostname, row.verifyToken);
        if (check.live && (await goLive(em, row.site.id, row.hostname))) live.push(row.hostname);
      }),
    );
  }
  // The gate's caches learn the new return targets within about a second (core/hot/generations.ts).
  if (live.length > 0) await bumpSitesGeneration(setup.hot);
  if (live.length > 0) opts.logger?.info(`proxy hostnames live now: ${live.join(', ')}`);
  else if (due.length > 0) opts.logger?.debug(`proxy hostnames: ${due.length} checked, none live yet`);
  return { checked: due.length, live };
}
