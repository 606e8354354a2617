// Closed months (`billing_months`): once a UTC month is over, it is priced from its plan segments
// (features/billing/segments.ts) and that row is the one claim on the month's overage. A month is closed by
// the hourly billing job, or right before a plan change if that comes first: its last segment runs to the
// month's end on the plan the workspace held then, so a plan changed just after midnight never reprices
// the month before, and one changed on its last day does not erase what the plan before it used.
import type { SqlConnection, InsertTransaction as Trx } from '@us/db';
import { type Plan, planOf } from '@us/shared';
import { segmentsOverageCents } from './pricing.ts';
import { closeSegment, monthBounds, segmentsOf } from './segments.ts';
import { monthOf } from './usage-counters.ts';

/**
 * Records every month of the workspace before `now`'s month that is not closed yet: its running segment
 * ends with the month on `plan`, and the month is priced from all its segments. Runs in the caller's
 * transaction, which holds the workspace row (so no plan change slips between).
 */
export async function closeMonths(conn: SqlConnection, trx: Trx, workspaceId: string, plan: Plan, now: Date): Promise<number> {
  const open = await conn.execute<{ month: string; pageviews: string; requests: string; proxies: number }[]>(
    `select to_char(u.month, 'YYYY-MM-DD') as month, u.pageviews::text as pageviews, u.requests::text as requests,
            u.proxy_peak as proxies
       from usage_months u
      where u.workspace_id = ? and u.month < ?::date
        and not exists (select 1 from billing_months b where b.workspace_id = u.workspace_id and b.month = u.month)
      order by u.month`,
    [workspaceId, monthOf(now)],
    'all',
    trx,
  );
  for (const m of open) {
    const { start, end } = monthBounds(m.month);
    await closeSegment(conn, trx, workspaceId, m.month, plan, new Date(end), false);
    const cents = segmentsOverageCents(await segmentsOf(conn, workspaceId, m.month, trx), end - start).total;
    await conn.execute(
      `insert into billing_months (workspace_id, month, plan, pageviews, requests, proxies, amount_cents, state)
       values (?, ?::date, ?, ?, ?, ?, ?, ?) on conflict (workspace_id, month) do nothing`,
      [workspaceId, m.month, plan, Number(m.pageviews), Number(m.requests), m.proxies, cents, cents > 0 ? 'pending' : 'none'],
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
 * the plan they ended on, then this month's running segment ends now on the plan it had. Every plan
 * change goes through here (plan_billing, the provider's webhooks, the end of a grace period). Answers
 * the plan it had.
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
    if (before !== plan) {
      await closeSegment(conn, t, workspaceId, monthOf(now), before, now, true);
      await conn.execute('update workspaces set plan = ? where id = ?', [plan, workspaceId], 'run', t);
    }
    return before;
  };
  return trx ? run(trx) : conn.transactional(run);
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
