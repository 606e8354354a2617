import type { Orm } from '@us/db';
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
/** Hostnames checked in one run at most (in turns: see `pendingInTurns`); the rest wait for the next run. */
export const INGRESS_CHECKS_PER_RUN = 50;
/** Due pending hostnames a run reads at most, to claim up to `INGRESS_CHECKS_PER_RUN` of them. */
const ROWS_PER_RUN = 2000;
/** Hostnames checked at the same time (each check is two to six DNS questions). */
const PARALLEL = 5;

export type IngressJobSetup = Pick<Deps, 'env' | 'urls' | 'hot'>;

export interface IngressRun {
  checked: number;
  live: string[];
}

/** A pending hostname as the job reads it. */
interface PendingHostname {
  site_id: string;
  hostname: string;
  verify_token: string;
  created_at: Date;
}

const everyFor = (ageMs: number) => (INGRESS_CHECK_SCHEDULE.find((s) => ageMs < s.youngerThanMs) ?? { everyMs: DAY }).everyMs;

/**
 * Claims the hostname's check for the current period of its schedule (counted from its creation): true
 * for the one run, on whichever node, that gets it. A run a minute later is in the next period.
 */
async function claim(setup: IngressJobSetup, row: PendingHostname, now: number): Promise<boolean> {
  const age = Math.max(0, now - new Date(row.created_at).getTime());
  const every = everyFor(age);
  const period = Math.floor(age / every);
  const key = `hostnames:ingress-check:${row.site_id}:${row.hostname}:${every}:${period}`;
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
  const rows = await pendingInTurns(orm, opts.siteIds, now);
  const due: PendingHostname[] = [];
  for (const row of rows) {
    if (due.length >= INGRESS_CHECKS_PER_RUN) break;
    if (await claim(setup, row, now)) due.push(row);
  }

  const dns = ingressDns(setup);
  const live: string[] = [];
  const liveSites = new Set<string>();
  for (let i = 0; i < due.length; i += PARALLEL) {
    await Promise.all(
      due.slice(i, i + PARALLEL).map(async (row) => {
        const check = await checkIngress(dns, row.hostname, row.verify_token);
        if (check.live && (await goLive(em, row.site_id, row.hostname))) {
          live.push(row.hostname);
          liveSites.add(row.site_id);
        }
      }),
    );
  }
  await markChecked(orm, due, new Date(now));
  // The gate's caches learn the new return targets within about a second (core/hot/generations.ts).
  if (live.length > 0) await bumpSitesGeneration(setup.hot, [...liveSites]);
  if (live.length > 0) opts.logger?.info(`proxy hostnames live now: ${live.join(', ')}`);
  else if (due.length > 0) opts.logger?.debug(`proxy hostnames: ${due.length} checked, none live yet`);
  return { checked: due.length, live };
}

/**
 * The schedule in SQL, as `everyFor` reads it: the check interval (ms) for the column `a.age` (ms). Built
 * from this module's numbers only.
 */
const EVERY_SQL = (() => {
  const last = INGRESS_CHECK_SCHEDULE.findIndex((s) => !Number.isFinite(s.youngerThanMs));
  const steps = last < 0 ? INGRESS_CHECK_SCHEDULE : INGRESS_CHECK_SCHEDULE.slice(0, last);
  const otherwise = last < 0 ? DAY : (INGRESS_CHECK_SCHEDULE[last]?.everyMs ?? DAY);
  const whens = steps.map((s) => `when a.age < ${Math.trunc(s.youngerThanMs)} then ${Math.trunc(s.everyMs)}`);
  return `case ${whens.join(' ')} else ${Math.trunc(otherwise)} end`;
})();

/**
 * Due pending built-in-ingress hostnames in turns: one of each workspace's (its least recently looked up, then
 * its newest), then a second of each, and so on. A workspace adding more hostnames than a run checks, and
 * leaving them pending, then takes one place of each turn: another workspace's hostname is looked up when due,
 * and its own hostnames take turns too.
 *
 * Due: never looked up, or last looked up before the current period of its schedule (as `claim` counts it,
 * from its creation, at `now`). Only due hostnames are read and take turns, so those not due, however many,
 * hold back none that is (a hostname in its first hour behind thousands looked up today).
 */
async function pendingInTurns(orm: Orm, siteIds: string[] | undefined, now: number): Promise<PendingHostname[]> {
  const order = 'h.ingress_checked_at asc nulls first, h.created_at desc, h.site_id, h.hostname';
  return orm.em.getConnection().execute<PendingHostname[]>(
    `select h.site_id, h.hostname, h.verify_token, h.created_at
       from site_hostnames h join sites s on s.id = h.site_id
       cross join lateral (select greatest(0, ?::bigint - floor(extract(epoch from h.created_at) * 1000)::bigint) as age) a
       cross join lateral (select ${EVERY_SQL}::bigint as every) e
      where h.proxy and h.edge_id is null and h.edge_status = ? and (?::uuid[] is null or h.site_id = any(?::uuid[]))
        and (h.ingress_checked_at is null or extract(epoch from h.ingress_checked_at) * 1000 < ?::bigint - mod(a.age, e.every))
      order by row_number() over (partition by s.workspace_id order by ${order}), ${order}
      limit ?`,
    [now, INGRESS_PENDING, ...Array(2).fill(siteIds ? `{${siteIds.join(',')}}` : null), now, ROWS_PER_RUN],
    'all',
  );
}

/** Records when the run looked the hostnames up, whatever it found: they go after the others in the next turns. */
async function markChecked(orm: Orm, rows: PendingHostname[], at: Date) {
  if (rows.length === 0) return;
  await orm.em.getConnection().execute(
    `update site_hostnames h set ingress_checked_at = ?
       from jsonb_to_recordset(?::jsonb) as c(site_id uuid, hostname text)
      where h.site_id = c.site_id and h.hostname = c.hostname`,
    [at, JSON.stringify(rows.map((r) => ({ site_id: r.site_id, hostname: r.hostname })))],
    'all',
  );
}
