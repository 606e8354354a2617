import type { Orm } from '@us/db';
import { keptPropertiesSql, sameKeysSql } from './kept-properties.ts';
import { ROLLED_TABLES, ROLLUP_VERSION } from './rollup-format.ts';

// Which site-days the rollup job (rollup.ts) counts next, in what order, and the oldest it leaves behind.

const DEFAULT_GRACE_MS = 3600_000;

/** A site-local day to roll up. */
export interface SiteDay {
  siteId: string;
  timezone: string;
  /** Site-local day, `YYYY-MM-DD`. */
  day: string;
  /** When the local day ended (ms since the epoch), for the rollup lag (`pendingSiteDays` gives it). */
  endedAt?: number;
  /** A day a rollup closed before, counted again (another format, zone or kept keys): `pendingSiteDays` says. */
  recount?: boolean;
  /** How often its rollup failed before (rollup-failures.ts); 0 or absent when never. */
  failures?: number;
}

export interface PendingDaysOptions {
  now?: Date;
  /** Only these sites (tests; a shared database). */
  siteIds?: string[];
  /** How long after its end a local day is complete. Default 1 h. */
  graceMs?: number;
}

/**
 * Complete site-local days overlapping a raw partition and missing from `rollup_days` (or rolled up in another
 * format, with other kept property keys or in the site's former time zone), in the order a run takes them:
 * - first the days no rollup has closed yet, then the days counted again. A change of time zone, of kept
 *   property keys or of the format makes a site's whole raw window a recount (read raw meanwhile), which must
 *   not hold back another tenant's new day;
 * - within each, the sites take turns (one day of each site, then the next), so that a site with many days
 *   (an owner switching zones back and forth) gets no larger share of a run than a site with one;
 * - each site's days newest first: the days its dashboards read most;
 * - a day whose rollup failed before only once its next try is due (rollup-failures.ts), after the others.
 */
export async function pendingSiteDays(orm: Orm, opts: PendingDaysOptions, limit: number): Promise<SiteDay[]> {
  const q = await candidatesQuery(orm, opts);
  if (!q) return [];
  const rows = await orm.em
    .getConnection()
    .execute<{ site_id: string; timezone: string; day: string; ended_at: string; recount: boolean; failures: number }[]>(
      `${q.ctes}
     select c.site_id::text as site_id, c.timezone, to_char(c.local_day, 'YYYY-MM-DD') as day, ${ENDED_AT}::text as ended_at,
            ${RECOUNT} as recount, coalesce(f.attempts, 0) as failures,
            row_number() over (partition by c.site_id, ${RECOUNT} order by c.local_day desc) as turn
     ${q.fromWhere}
        and (f.next_try_at is null or f.next_try_at <= ?::timestamptz)
      order by recount, f.attempts is not null, turn, c.local_day desc, c.site_id
      limit ?`,
      [...q.params, (opts.now ?? new Date()).toISOString(), limit],
      'all',
    );
  return rows.map((r) => ({
    siteId: r.site_id,
    timezone: r.timezone,
    day: r.day,
    endedAt: Number(r.ended_at),
    recount: r.recount,
    failures: r.failures,
  }));
}

/**
 * When the oldest pending day that no rollup has closed yet ended (ms since the epoch); days counted again keep
 * theirs. A failing day waiting for its next try counts: it is still without its rollup.
 */
export async function oldestUnclosedDay(orm: Orm, opts: PendingDaysOptions): Promise<number | undefined> {
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
  opts: PendingDaysOptions,
): Promise<{ ctes: string; fromWhere: string; params: unknown[] } | null> {
  if (opts.siteIds && opts.siteIds.length === 0) return null;
  const partitions = await orm.em.getConnection().execute<{ day: string }[]>(
    `select distinct to_char(to_date(substring(c.relname from '_p([0-9]{8})$'), 'YYYYMMDD'), 'YYYY-MM-DD') as day
       from pg_inherits i
       join pg_class c on c.oid = i.inhrelid
       join pg_class pp on pp.oid = i.inhparent
       join pg_namespace n on n.oid = pp.relnamespace
      where n.nspname = current_schema() and pp.relname in (${ROLLED_TABLES.map((t) => `'${t}'`).join(', ')})
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
  // The failures, over the same days.
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
     ),
     failing as materialized (
       select rf.site_id, rf.day, rf.attempts, rf.next_try_at from rollup_failures rf
        where rf.day between ?::date - 1 and ?::date + 1
          ${siteCond('rf.site_id')}
     )`,
    // One record per site-day at most in each (their primary keys).
    fromWhere: `from c
       left join rolled k on k.site_id = c.site_id and k.day = c.local_day
       left join failing f on f.site_id = c.site_id and f.day = c.local_day
      where not coalesce(k.complete and ${sameKeysSql('k.properties', 'c.kept')}
                         and (k.timezone is null or k.timezone = c.timezone), false)
        and (c.first_utc >= ?::date or k.site_id is null)`,
    params,
  };
}
