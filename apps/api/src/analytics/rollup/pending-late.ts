import type { Orm } from '@us/db';
import type { SiteDay } from './pending-days.ts';
import { ROLLUP_VERSION } from './rollup-format.ts';

// Complete site-days with late rows: the rollup job's last candidates (rollup.ts). The intake takes records up to
// 48 h late and a node's buffer saved through an outage is stored at its next start, so rows keep arriving for a day
// after its complete rollup; the dashboards read a complete day from its rollup, so the job adds them (only the
// visitors they touch: rollup-delta.ts).

/**
 * How long after its end a complete day is looked at for late rows: the intake's 48 h, and a day more for buffers
 * stored after an outage. Rows later than that are in the raw tables (exports, raw questions) but not the rollup.
 */
export const LATE_ROWS_WINDOW_MS = 72 * 3_600_000;

/** A complete rollup of a recent day, with its site's zone now: one to look at for late rows. */
export interface RecentComplete {
  siteId: string;
  timezone: string;
  day: string;
  snapshot: string;
}

/**
 * The complete rollups in this format of local days that ended within `LATE_ROWS_WINDOW_MS` before `now`, counted in
 * the site's zone now, newest day first. Two statements (the records, then their sites' zones): `rollup_days` may be
 * spread over Citus's workers while `sites` is not.
 */
export async function recentCompleteDays(orm: Orm, opts: { now?: Date; siteIds?: string[] }): Promise<RecentComplete[]> {
  if (opts.siteIds && opts.siteIds.length === 0) return [];
  const now = opts.now ?? new Date();
  const conn = orm.em.getConnection();
  // A local day ends at most 14 h after its UTC day does: a day more either side.
  const since = new Date(now.getTime() - LATE_ROWS_WINDOW_MS - 2 * 86_400_000).toISOString().slice(0, 10);
  const records = await conn.execute<{ site_id: string; day: string; snapshot: string; timezone: string | null }[]>(
    `select site_id::text as site_id, to_char(day, 'YYYY-MM-DD') as day, snapshot::text as snapshot, timezone
       from rollup_days
      where rolled_until is null and snapshot is not null and version = ? and day >= ?::date
        ${opts.siteIds ? 'and site_id = any(?::uuid[])' : ''}`,
    [ROLLUP_VERSION, since, ...(opts.siteIds ? [`{${opts.siteIds.join(',')}}`] : [])],
    'all',
  );
  if (!records.length) return [];
  const ids = [...new Set(records.map((r) => r.site_id))];
  const days = [...new Set(records.map((r) => r.day))];
  const sites = await conn.execute<{ id: string; timezone: string; ended: string[] }[]>(
    `select s.id::text as id, s.timezone,
            array(select extract(epoch from ((d::date + 1)::timestamp at time zone s.timezone))::bigint::text
                    from unnest(?::date[]) d) as ended
       from sites s where s.id = any(?::uuid[]) and s.timezone in (select name from pg_timezone_names)`,
    [`{${days.join(',')}}`, `{${ids.join(',')}}`],
    'all',
  );
  const zoneOf = new Map(sites.map((s) => [s.id, s]));
  const out: RecentComplete[] = [];
  for (const r of records) {
    const site = zoneOf.get(r.site_id);
    if (!site || (r.timezone !== null && r.timezone !== site.timezone)) continue;
    const endedAt = Number(site.ended[days.indexOf(r.day)]) * 1000;
    if (endedAt > now.getTime() || now.getTime() - endedAt > LATE_ROWS_WINDOW_MS) continue;
    out.push({ siteId: r.site_id, timezone: site.timezone, day: r.day, snapshot: r.snapshot });
  }
  return out.sort((a, b) => (a.day === b.day ? (a.siteId < b.siteId ? -1 : 1) : a.day < b.day ? 1 : -1));
}

/** A late day as the job takes it: counted again (its age is no lag). */
export const lateSiteDay = (d: RecentComplete): SiteDay => ({
  siteId: d.siteId,
  timezone: d.timezone,
  day: d.day,
  recount: true,
});
