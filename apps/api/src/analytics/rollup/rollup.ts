import type { Orm } from '@us/db';
import { CompiledQuery } from 'kysely';
import { withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { rollupLag, rollupOldestPending } from '../../core/observe/metrics.ts';
import { keptPropertiesSql, sameKeys, sameKeysSql } from './kept-properties.ts';
import type { RolledState } from './rollup-delta.ts';
import { ROLLUP_VERSION, type RollupSource } from './rollup-format.ts';
import { rollupInThread } from './rollup-thread.ts';
import { replaceSiteDayRollup } from './rollup-write.ts';

/**
 * The daily rollup job: writes `daily_rollups` (format: the header of stats/catalogue.ts) for every
 * complete site-local day that is not in `rollup_days` yet, one transaction per site-day (its rows and
 * its `rollup_days` row together; a re-run deletes and rewrites that site-day, so it is harmless).
 *
 * - A local day is complete once the site's local midnight after it is `graceMs` (default 1 h) past,
 *   so rows the buffers and the edge SDK deliver late still land in it.
 * - Candidates are the local days overlapping an existing raw partition (catalog, no table scan) that
 *   are not rolled up in the current format (ROLLUP_VERSION) with the site's kept property keys
 *   (kept-properties.ts: a changed list rolls the raw window's days up again), at most `maxDays` per run, in
 *   an order fair between tenants (`pendingSiteDays`). A day rolled up before whose first UTC day's partition
 *   is gone already is left as it is: rolled up again from what is left, it would lose the rows of that partition.
 *   A candidate with no raw rows gets only its `rollup_days` row (nothing to roll up), so it is not probed again.
 * - Lanes are the stored `lane` column: a site's bot windows are not applied in rollups.
 * - Rows arriving for a day after its complete rollup are not added to its rollups.
 * - A day whose current-day rollup (rollup-today.ts) recorded its snapshot is completed incrementally
 *   (rollup-delta.ts).
 */

const DEFAULT_MAX_DAYS = 500;
const DEFAULT_GRACE_MS = 3600_000;
const TABLES = ['pageviews', 'events', 'requests'] as const;

export interface RunRollupsOptions {
  now?: Date;
  /** Only these sites (tests; a shared database). */
  siteIds?: string[];
  /** Site-days per run, in the order of `pendingSiteDays`. Default 500. */
  maxDays?: number;
  graceMs?: number;
  /** Wait for another node's run to end instead of skipping (tests, one-off runs). */
  wait?: boolean;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface RollupRun {
  /** false when another node held the job's lock. */
  ran: boolean;
  /** Site-days rolled up that had raw rows. */
  rolled: number;
  /** Candidate site-days that had no raw rows (marked done). */
  empty: number;
  /** true when the run stopped at `maxDays` with more candidates waiting. */
  more: boolean;
  failed: number;
}

export interface SiteDay {
  siteId: string;
  timezone: string;
  /** Site-local day, `YYYY-MM-DD`. */
  day: string;
  /** When the local day ended (ms since the epoch), for the rollup lag (`pendingSiteDays` gives it). */
  endedAt?: number;
}

/** Rolls up every complete site-local day not rolled up yet (bounded per run; once across nodes). */
export async function runRollups(orm: Orm, opts: RunRollupsOptions = {}): Promise<RollupRun> {
  const res = await withJobLock(orm, 'rollups', () => rollupPending(orm, opts), { wait: opts.wait });
  return res.ran ? res.result : { ran: false, rolled: 0, empty: 0, more: false, failed: 0 };
}

async function rollupPending(orm: Orm, opts: RunRollupsOptions): Promise<RollupRun> {
  const maxDays = opts.maxDays ?? DEFAULT_MAX_DAYS;
  const started = Date.now();
  const candidates = await pendingSiteDays(orm, opts, maxDays + 1);
  const more = candidates.length > maxDays;
  const run: RollupRun = { ran: true, rolled: 0, empty: 0, more, failed: 0 };
  const now = () => opts.now?.getTime() ?? Date.now();
  let oldestFailed: number | undefined;
  for (const sd of candidates.slice(0, maxDays)) {
    try {
      if (await rollupSiteDay(orm, sd)) run.rolled += 1;
      else run.empty += 1;
      if (sd.endedAt !== undefined) rollupLag.observe((now() - sd.endedAt) / 1000);
    } catch (e) {
      run.failed += 1;
      if (sd.endedAt !== undefined) oldestFailed = Math.min(oldestFailed ?? sd.endedAt, sd.endedAt);
      opts.logger?.error(`rollups: site ${sd.siteId} day ${sd.day} failed`, e);
    }
    if ((run.rolled + run.empty) % 100 === 0) {
      opts.logger?.info(`rollups: ${run.rolled + run.empty}/${Math.min(maxDays, candidates.length)} site-days`);
    }
  }
  // The oldest complete site-day this run leaves without a rollup (a failure, or past `maxDays`), read again as
  // the run took its days by turns; a day counted again keeps its rollup meanwhile. Ages on the run's clock.
  const oldestLeft =
    more || run.failed
      ? await oldestUnclosedDay(orm, opts).catch((e) => {
          opts.logger?.error('rollups: the oldest day left could not be read; the gauge counts the failed days only', e);
          return oldestFailed;
        })
      : undefined;
  rollupOldestPending.set(oldestLeft === undefined ? 0 : Math.max(0, (now() - oldestLeft) / 1000));
  if (run.rolled || run.failed || more) {
    opts.logger?.info(
      `rollups: ${run.rolled} site-days rolled up, ${run.empty} empty, ${run.failed} failed in ${Date.now() - started} ms${more ? '; more waiting' : ''}`,
    );
  }
  return run;
}

/**
 * Complete site-local days overlapping a raw partition and missing from `rollup_days` (or rolled up in another
 * format, with other kept property keys or in the site's former time zone), in the order a run takes them:
 * - first the days no rollup has closed yet, then the days counted again. A change of time zone, of kept
 *   property keys or of the format makes a site's whole raw window a recount (read raw meanwhile), which must
 *   not hold back another tenant's new day;
 * - within each, the sites take turns (one day of each site, then the next), so that a site with many days
 *   (an owner switching zones back and forth) gets no larger share of a run than a site with one;
 * - each site's days newest first: the days its dashboards read most.
 */
export async function pendingSiteDays(orm: Orm, opts: RunRollupsOptions, limit: number): Promise<SiteDay[]> {
  const q = await candidatesQuery(orm, opts);
  if (!q) return [];
  const rows = await orm.em.getConnection().execute<{ site_id: string; timezone: string; day: string; ended_at: string }[]>(
    `${q.ctes}
     select c.site_id::text as site_id, c.timezone, to_char(c.local_day, 'YYYY-MM-DD') as day, ${ENDED_AT}::text as ended_at,
            ${RECOUNT} as recount,
            row_number() over (partition by c.site_id, ${RECOUNT} order by c.local_day desc) as turn
     ${q.fromWhere}
      order by recount, turn, c.local_day desc, c.site_id
      limit ?`,
    [...q.params, limit],
    'all',
  );
  return rows.map((r) => ({ siteId: r.site_id, timezone: r.timezone, day: r.day, endedAt: Number(r.ended_at) }));
}

/** When the oldest pending day that no rollup has closed yet ended (ms since the epoch); days counted again keep theirs. */
export async function oldestUnclosedDay(orm: Orm, opts: RunRollupsOptions): Promise<number | undefined> {
  const q = await candidatesQuery(orm, opts);
  if (!q) return undefined;
  const [row] = await orm.em
    .getConnection()
    .execute<{ ended_at: string | null }[]>(
      `${q.ctes} select min(${ENDED_AT})::text as ended_at ${q.fromWhere} and not ${RECOUNT}`,
      q.params,
      'all',
    );
  return row?.ended_at == null ? undefined : Number(row.ended_at);
}

/** When a candidate's local day ended, in ms since the epoch. */
const ENDED_AT = '(extract(epoch from ((c.local_day + 1)::timestamp at time zone c.timezone)) * 1000)::bigint';
/** Whether a candidate was closed by a rollup before (now in another format, zone or with other kept keys). */
const RECOUNT = 'coalesce(k.closed, false)';

/**
 * The candidates' statement but for what it selects: the raw partitions' days from this node's catalog (a
 * statement of its own), then `ctes` and `fromWhere` for the sites' local days among them that no complete
 * rollup records (`c`, each with its day's rollup record `k` if any). The rolled days are read as a set of
 * their own and joined rather than looked up per candidate (a correlated subquery), which is what Citus can run
 * when `rollup_days` is spread over workers (it also stops with a segmentation fault on such lookups inside a
 * subquery of the statement). Null when there is no raw partition.
 */
async function candidatesQuery(
  orm: Orm,
  opts: RunRollupsOptions,
): Promise<{ ctes: string; fromWhere: string; params: unknown[] } | null> {
  if (opts.siteIds && opts.siteIds.length === 0) return null;
  const partitions = await orm.em.getConnection().execute<{ day: string }[]>(
    `select distinct to_char(to_date(substring(c.relname from '_p([0-9]{8})$'), 'YYYYMMDD'), 'YYYY-MM-DD') as day
       from pg_inherits i
       join pg_class c on c.oid = i.inhrelid
       join pg_class pp on pp.oid = i.inhparent
       join pg_namespace n on n.oid = pp.relnamespace
      where n.nspname = current_schema() and pp.relname in (${TABLES.map((t) => `'${t}'`).join(', ')})
        and c.relname ~ '_p[0-9]{8}$'
      order by 1`,
    [],
    'all',
  );
  if (!partitions.length) return null;
  const days = partitions.map((p) => p.day);
  const now = opts.now ?? new Date();
  const ready = new Date(now.getTime() - (opts.graceMs ?? DEFAULT_GRACE_MS));
  const siteCond = (column: string) => (opts.siteIds ? `and ${column} = any(?::uuid[])` : '');
  // Arrays go as PostgreSQL array literals (the values are dates and uuids).
  const siteIds = opts.siteIds ? `{${opts.siteIds.join(',')}}` : undefined;
  const params: unknown[] = [];
  if (siteIds) params.push(siteIds);
  // The partitions' days, and when a local day must have ended to be complete.
  params.push(`{${days.join(',')}}`, ready.toISOString());
  // A site-local day reaches at most a day either side of the UTC days it overlaps.
  params.push(days[0], days[days.length - 1]);
  if (siteIds) params.push(siteIds);
  // The oldest raw partition: a local day starting before it lost some of its rows to retention.
  params.push(days[0]);
  // The local days are worked out once per zone in use, not per site: a few hundred zones at most.
  return {
    ctes: `with site_keys as materialized (
       select s.id, s.timezone, ${keptPropertiesSql('s')} as kept
         from sites s
        where s.timezone in (select name from pg_timezone_names) ${siteCond('s.id')}
     ),
     zone_days as materialized (
       select distinct z.timezone, ld.local_day,
              ((ld.local_day::timestamp at time zone z.timezone) at time zone 'UTC')::date as first_utc
         from (select distinct timezone from site_keys) z
         cross join unnest(?::date[]) p(day)
         cross join lateral (values
           (((p.day::timestamp at time zone 'UTC') at time zone z.timezone)::date),
           (((((p.day + 1)::timestamp at time zone 'UTC') - interval '1 microsecond') at time zone z.timezone)::date)
         ) ld(local_day)
        where ld.local_day < (?::timestamptz at time zone z.timezone)::date
     ),
     c as (
       select sk.id as site_id, sk.timezone, sk.kept, d.local_day, d.first_utc
         from site_keys sk join zone_days d on d.timezone = sk.timezone
     ),
     rolled as materialized (
       select rd.site_id, rd.day, rd.version >= ${ROLLUP_VERSION} and rd.rolled_until is null as complete, rd.properties,
              rd.timezone, rd.rolled_until is null as closed
         from rollup_days rd
        where rd.day between ?::date - 1 and ?::date + 1
          ${siteCond('rd.site_id')}
     )`,
    // One record per site-day at most (the primary key).
    fromWhere: `from c
       left join rolled k on k.site_id = c.site_id and k.day = c.local_day
      where not coalesce(k.complete and ${sameKeysSql('k.properties', 'c.kept')}
                         and (k.timezone is null or k.timezone = c.timezone), false)
        and (c.first_utc >= ?::date or k.site_id is null)`,
    params,
  };
}

interface Bounds {
  /** Local midnight starting the day, and the next one (ISO instants). */
  lo: string;
  hi: string;
  /** The UTC days (partitions) that can hold the day's rows. */
  firstUtc: string;
  lastUtc: string;
  /** The site's kept property keys, as its settings hold them. */
  kept: string[];
}

async function boundsOf(orm: Orm, sd: SiteDay): Promise<Bounds> {
  const [b] = await orm.em.getConnection().execute<Bounds[]>(
    `select to_char(lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "lo",
            to_char(hi at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "hi",
            to_char((lo at time zone 'UTC')::date, 'YYYY-MM-DD') as "firstUtc",
            to_char(((hi - interval '1 microsecond') at time zone 'UTC')::date, 'YYYY-MM-DD') as "lastUtc",
            coalesce((select ${keptPropertiesSql('s')} from sites s where s.id = ?::uuid), '{}') as "kept"
       from (select (?::date)::timestamp at time zone ? as lo, (?::date + 1)::timestamp at time zone ? as hi) b`,
    [sd.siteId, sd.day, sd.timezone, sd.day, sd.timezone],
    'all',
  );
  if (!b) throw new Error('no bounds');
  return b;
}

/** A site-day's raw rows (before `until`, when given) within its bounds. */
function sourceWithin(sd: SiteDay, b: Bounds, until?: string): RollupSource {
  return {
    tables: { pageviews: 'pageviews', events: 'events', requests: 'requests', page_leaves: 'page_leaves' },
    where: `site_id = ?::uuid and day between ?::date and ?::date and at >= ?::timestamptz and at < ?::timestamptz`,
    whereParams: [sd.siteId, b.firstUtc, b.lastUtc, b.lo, until ?? b.hi],
    // A leave report may be stored up to a day after its pageview.
    leavesWhere: 'l.site_id = ?::uuid and l.day between ?::date and ?::date + 2',
    leavesParams: [sd.siteId, b.firstUtc, b.lastUtc],
    keptProperties: b.kept,
  };
}

/**
 * Where a site-day's raw rows are (before `until`, when given): its local day's instants within its UTC day
 * partitions; with the site's kept property keys.
 */
export async function siteDaySource(orm: Orm, sd: SiteDay, until?: string): Promise<RollupSource> {
  return sourceWithin(sd, await boundsOf(orm, sd), until);
}

/** What rolling up a site-day did: rollup rows written, visitors recounted (null: the whole day was counted). */
export interface SiteDayRolled {
  rows: number;
  recounted: number | null;
}

/** A site-day's `rollup_days` record, as the next rollup reads it. */
interface DayRecordRow {
  until: string | null;
  snapshot: string | null;
  server: string | null;
  version: number;
  properties: string[];
  timezone: string | null;
  omitted: string[];
}

/**
 * The day's last rollup, when the next one can start from it (rollup-delta.ts): a rollup of the current
 * day in this format and with these kept property keys and time zone that recorded its snapshot, reaching no further
 * than `until` (null: the day's end).
 */
async function lastRollup(orm: Orm, sd: SiteDay, src: RollupSource, until: string | null): Promise<RolledState | null> {
  const [last] = await orm.em.getConnection().execute<DayRecordRow[]>(
    `select to_char(rolled_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as until,
            snapshot::text as snapshot, snapshot_server as server, version, properties, timezone, omitted_pairs as omitted
       from rollup_days where site_id = ? and day = ?`,
    [sd.siteId, sd.day],
    'all',
  );
  if (!last?.until || !last.snapshot || last.version !== ROLLUP_VERSION) return null;
  // Counted in the site's former time zone: another local day.
  if (last.timezone !== null && last.timezone !== sd.timezone) return null;
  if (!sameKeys(last.properties, src.keptProperties ?? [])) return null;
  if (until !== null && Date.parse(until) < Date.parse(last.until)) return null;
  return { until: last.until, snapshot: last.snapshot, server: last.server, omitted: last.omitted };
}

/**
 * Rolls up one site-local day: the rollup thread (rollup-thread.ts) counts its rollup rows from COPY
 * streams of the day's rows (rollup-streams.ts) on up to `ROLLUP_CONNECTIONS` connections, then deletes
 * the day's rollup rows, writes the new ones and records the day in `rollup_days`, in one short
 * transaction (a day without rows gets only that record). A day rolled up before up to an hour
 * (rollup-today.ts) is brought up to date by recounting only the visitors with rows that rollup did
 * not see (rollup-delta.ts). Answers null when the day has no raw rows. `until` (an instant within the
 * day): only rows before it, recorded as the day's `rolled_until` (the current day); without it the
 * day is complete.
 */
export async function rollupSiteDay(orm: Orm, sd: SiteDay, until?: string): Promise<SiteDayRolled | null> {
  const conn = orm.em.getConnection();
  const bounds = await boundsOf(orm, sd);
  const src = sourceWithin(sd, bounds, until);
  const [probe] = await conn.execute<{ any: boolean }[]>(
    `select ${TABLES.map((t) => `exists (select 1 from ${t} where ${src.where})`).join(' or ')} as any`,
    TABLES.flatMap(() => src.whereParams),
    'all',
  );
  if (probe?.any === true) {
    // Counted and written in the rollup thread: the API's event loop neither counts nor encodes the rows.
    const last = await lastRollup(orm, sd, src, until ?? null);
    const wholeDay = until === undefined ? src : sourceWithin(sd, bounds);
    return rollupInThread(orm, {
      src,
      wholeDay,
      atOnce: ROLLUP_CONNECTIONS,
      siteId: sd.siteId,
      day: sd.day,
      timezone: sd.timezone,
      until: until ?? null,
      last,
    });
  }
  await conn
    .getClient()
    .transaction()
    .execute((trx) =>
      replaceSiteDayRollup(
        async (sql, params) => (await trx.executeQuery(CompiledQuery.raw(sql, params))).rows,
        sd.siteId,
        sd.day,
        [],
        { until: until ?? null, properties: src.keptProperties, timezone: sd.timezone },
      ),
    );
  return null;
}

/** Connections one site-day's rollup reads on at once (the leave reports beside the pageviews, then events and requests). */
const ROLLUP_CONNECTIONS = 2;
