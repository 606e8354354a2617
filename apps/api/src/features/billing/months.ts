// Closed months (`billing_months`): once a UTC month is over, its usage is priced with the plan the
// workspace ended it on, and that row is the one claim on the month's overage. A month is closed by the
// hourly billing job, or right before a plan change if that comes first, so a month is always priced
// with the plan it really ended on, and a plan changed just after midnight never reprices the last one.
import type { SqlConnection, InsertTransaction as Trx } from '@us/db';
import { type Plan, planOf } from '@us/shared';
import { monthOverageCents } from './pricing.ts';
import { monthOf } from './usage-counters.ts';

/**
 * Records every month of the workspace before `now`'s month that is not closed yet, priced with `plan`.
 * Runs in the caller's transaction, which holds the workspace row (so no plan change slips between).
 */
export async function closeMonths(conn: SqlConnection, trx: Trx, workspaceId: string, plan: Plan, now: Date): Promise<number> {
  const open = await conn.execute<{ month: string; pageviews: string; requests: string; proxies: number }[]>(
    `select to_char(u.month, 'YYYY-MM-DD') as month, u.pageviews::text as pageviews, u.requests::text as requests,
            u.proxy_peak as proxies
       from usage_months u
      where u.workspace_id = ? and u.month < ?::date
        and not exists (select 1 from billing_months b where b.workspace_id = u.workspace_id and b.month = u.month)`,
    [workspaceId, monthOf(now)],
    'all',
    trx,
  );
  for (const m of open) {
    const used = { pageviews: Number(m.pageviews), requests: Number(m.requests), proxies: m.proxies };
    const cents = monthOverageCents(plan, used);
    await conn.execute(
      `insert into billing_months (workspace_id, month, plan, pageviews, requests, proxies, amount_cents, state)
       values (?, ?::date, ?, ?, ?, ?, ?, ?) on conflict (workspace_id, month) do nothing`,
      [workspaceId, m.month, plan, used.pageviews, used.requests, used.proxies, cents, cents > 0 ? 'pending' : 'none'],
      'run',
      trx,
    );
  }
  return open.length;
}

/**
 * Locks the workspace row and closes its open months with the plan it holds: the hourly job's step for
 * paid workspaces, and the first step of every plan change. Answers that plan.
 */
export async function closeOpenMonths(conn: SqlConnection, t: Trx, workspaceId: string, now: Date): Promise<Plan> {
  const [row] = await conn.execute<{ plan: string }[]>(
    'select plan from workspaces where id = ? for update',
    [workspaceId],
    'all',
    t,
  );
  const plan = planOf(row?.plan);
  await closeMonths(conn, t, workspaceId, plan, now);
  return plan;
}

/**
 * Moves the workspace to `plan` at once (limits read the row): months still open are first closed with
 * the plan they ended on. Answers the plan it had.
 */
export async function switchPlan(
  conn: SqlConnection,
  workspaceId: string,
  plan: Plan,
  now = new Date(),
  trx?: Trx,
): Promise<Plan> {
  const run = async (t: Trx) => {
    const before = await closeOpenMonths(conn, t, workspaceId, now);
    if (before !== plan) await conn.execute('update workspaces set plan = ? where id = ?', [plan, workspaceId], 'run', t);
    return before;
  };
  return trx ? run(trx) : conn.transactional(run);
}

/** The most proxy-mode hostnames each workspace (or one) holds now, kept as its month's peak. */
export async function sampleProxyPeaks(conn: SqlConnection, now: Date, workspaceId?: string): Promise<void> {
  await conn.execute(
    `insert into usage_months (workspace_id, month, proxy_peak)
     select s.workspace_id, ?::date, count(*)::int from site_hostnames h join sites s on s.id = h.site_id
      where h.proxy ${workspaceId ? 'and s.workspace_id = ?' : ''} group by 1
     on conflict (workspace_id, month) do update
       set proxy_peak = greatest(usage_months.proxy_peak, excluded.proxy_peak)`,
    workspaceId ? [monthOf(now), workspaceId] : [monthOf(now)],
    'run',
  );
}

export interface ClosedMonth {
  month: string;
  plan: Plan;
  overageUsd: number;
  reported: boolean;
}

/** The last twelve closed months, newest first. */
export async function closedMonths(conn: SqlConnection, workspaceId: string): Promise<ClosedMonth[]> {
  const rows = await conn.execute<{ month: string; plan: string; amount_cents: number; state: string }[]>(
    `select to_char(month, 'YYYY-MM-DD') as month, plan, amount_cents, state from billing_months
      where workspace_id = ? order by month desc limit 12`,
    [workspaceId],
    'all',
  );
  return rows.map((r) => ({
    month: r.month,
    plan: planOf(r.plan),
    overageUsd: r.amount_cents / 100,
    reported: r.state !== 'pending',
  }));
}
