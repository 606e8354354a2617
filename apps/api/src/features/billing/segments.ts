// Plan segments (`billing_segments`): the stretches of a UTC month a workspace spent on one plan. The
// running segment of a month is implicit: it began when the last closed one of that month ended (or on the
// 1st), on the plan the workspace holds now, and has used the month's counters less what the closed ones
// used. Every plan change closes it (features/billing/months.ts, switchPlan), and so does closing the month.
// All of it runs in the caller's transaction, which holds the workspace row.
import type { SqlConnection, InsertTransaction as Trx } from '@us/db';
import { type Plan, planOf } from '@us/shared';
import type { PlanSegment } from './pricing.ts';
import { monthOf } from './usage-counters.ts';

/** Start of the UTC month `YYYY-MM-DD` and of the next one (ms). */
export function monthBounds(month: string): { start: number; end: number } {
  const start = Date.parse(`${month}T00:00:00Z`);
  const d = new Date(start);
  return { start, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** The most proxy-mode hostnames each workspace (or one) holds now, kept as its month's and running segment's peak. */
export async function sampleProxyPeaks(conn: SqlConnection, now: Date, workspaceId?: string, trx?: Trx): Promise<void> {
  const month = monthOf(now);
  await conn.execute(
    `insert into usage_months (workspace_id, month, proxy_peak, segment_proxy_peak)
     select s.workspace_id, ?::date, count(*)::int, count(*)::int from site_hostnames h join sites s on s.id = h.site_id
      where h.proxy ${workspaceId ? 'and s.workspace_id = ?' : ''} group by 1
     on conflict (workspace_id, month) do update
       set proxy_peak = greatest(usage_months.proxy_peak, excluded.proxy_peak),
           segment_proxy_peak = greatest(usage_months.segment_proxy_peak, excluded.segment_proxy_peak)`,
    workspaceId ? [month, workspaceId] : [month],
    'run',
    trx,
  );
}

/**
 * Closes the running segment of `month` at `end` with the plan it ran on. In the month still running,
 * the next segment's proxy peak starts from the hostnames held now.
 */
export async function closeSegment(
  conn: SqlConnection,
  trx: Trx,
  workspaceId: string,
  month: string,
  plan: Plan,
  end: Date,
  running: boolean,
): Promise<void> {
  if (running) await sampleProxyPeaks(conn, end, workspaceId, trx);
  await conn.execute(
    `with closed as (
       select coalesce(max(ended_at), ?::timestamptz) as started_at, coalesce(sum(pageviews), 0) as pageviews,
              coalesce(sum(requests), 0) as requests, count(*) as n
         from billing_segments where workspace_id = ? and month = ?::date)
     insert into billing_segments (workspace_id, month, plan, started_at, ended_at, pageviews, requests, proxies)
     select ?, ?::date, ?, c.started_at, greatest(c.started_at, ?::timestamptz),
            greatest(0, coalesce(u.pageviews, 0) - c.pageviews), greatest(0, coalesce(u.requests, 0) - c.requests),
            -- The month's first segment held the month's peak so far.
            coalesce(case when c.n = 0 then greatest(u.proxy_peak, u.segment_proxy_peak) else u.segment_proxy_peak end, 0)
       from closed c left join usage_months u on u.workspace_id = ? and u.month = ?::date`,
    [new Date(monthBounds(month).start), workspaceId, month, workspaceId, month, plan, end, workspaceId, month],
    'run',
    trx,
  );
  if (running) {
    await conn.execute(
      `insert into usage_months (workspace_id, month, segment_proxy_peak)
       select ?::uuid, ?::date, count(*)::int from site_hostnames h join sites s on s.id = h.site_id
        where h.proxy and s.workspace_id = ?
       on conflict (workspace_id, month) do update set segment_proxy_peak = excluded.segment_proxy_peak`,
      [workspaceId, month, workspaceId],
      'run',
      trx,
    );
  }
}

export interface ClosedSegment extends PlanSegment {
  startedAt: Date;
  endedAt: Date;
}

/** The closed segments of a workspace's month, in order. */
export async function segmentsOf(conn: SqlConnection, workspaceId: string, month: string, trx?: Trx): Promise<ClosedSegment[]> {
  const rows = await conn.execute<
    { plan: string; started_at: Date | string; ended_at: Date | string; pageviews: string; requests: string; proxies: number }[]
  >(
    `select plan, started_at, ended_at, pageviews::text as pageviews, requests::text as requests, proxies
       from billing_segments where workspace_id = ? and month = ?::date order by started_at, id`,
    [workspaceId, month],
    'all',
    trx,
  );
  return rows.map((r) => {
    const startedAt = new Date(r.started_at);
    const endedAt = new Date(r.ended_at);
    return {
      plan: planOf(r.plan),
      startedAt,
      endedAt,
      ms: endedAt.getTime() - startedAt.getTime(),
      pageviews: Number(r.pageviews),
      requests: Number(r.requests),
      proxies: r.proxies,
    };
  });
}
