import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type AnalyticsRows,
  type AnalyticsTable,
  type InsertTally,
  type InsertTransaction,
  insertRowsTallied,
  type Orm,
  type SqlConnection,
} from '@us/db';
import { PLAN_LIMITS, type Plan, planOf } from '@us/shared';
import type { Logger } from '../../core/logger.ts';
import type { Mailer } from '../../core/mail/mailer.ts';
import { usageNoticeMail } from '../../core/mail/templates.ts';

/**
 * Monthly allowances per workspace (spec §8): `usage_months` counts human pageviews (lane human) and
 * server requests (every `requests` row) as they are really inserted, in the insert's own transaction,
 * so a retried batch (rows already there) counts nothing and a failed insert counts nothing either.
 * Months are UTC calendar months of each row's `at`, except for a month the billing job already closed
 * (`billing_months`, features/billing/months.ts): rows of a closed month arrive late (the intake takes them up
 * to 48 h late, and buffered ones are stored after an outage) and count in the workspace's next open month,
 * which bills them, instead of in a month that was already priced.
 */

/** Free notices: at these percentages of each allowance, once per month each. */
export const NOTICE_PERCENTS = [80, 100] as const;
/** Free: server-request logging pauses at this share of the allowance until the month turns. */
export const PAUSE_RATIO = 1.5;

export type Allowance = 'pageviews' | 'requests';

/** First day of the UTC month of `at`, `YYYY-MM-DD`. */
export function monthOf(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}

export function allowancesOf(plan: Plan): Record<Allowance, number> {
  const l = PLAN_LIMITS[plan];
  return { pageviews: l.humanPageviewsPerMonth, requests: l.serverRequestsPerMonth };
}

/** Whether a plan's server-request logging is paused at this many requests (Free at 150%; paid never). */
export function pausedAt(plan: Plan, requests: number): boolean {
  return plan === 'Free' && requests >= allowancesOf('Free').requests * PAUSE_RATIO;
}

export interface UsageRow {
  workspaceId: string;
  month: string;
  pageviews: number;
  requests: number;
  notified: string[];
}

/**
 * Adds a tally of inserted rows to the workspaces' months (sites joined to their workspace), inside
 * the insert's transaction. Pageviews count their human rows, requests every row; other tables nothing.
 */
export async function addUsage(
  conn: SqlConnection,
  trx: InsertTransaction | undefined,
  table: AnalyticsTable,
  tally: InsertTally[],
): Promise<UsageRow[]> {
  if (table !== 'pageviews' && table !== 'requests') return [];
  const parts = tally
    .map((t) => ({ ...t, n: table === 'pageviews' ? t.human : t.total }))
    .filter((t) => t.n > 0)
    .sort((a, b) => (a.siteId + a.month < b.siteId + b.month ? -1 : 1));
  if (!parts.length) return [];
  const column = table === 'pageviews' ? 'pageviews' : 'requests';
  await holdMonthsOpen(conn, trx, [...new Set(parts.map((p) => p.siteId))]);
  const params: unknown[] = [monthOf(new Date())];
  const values = parts.map((p) => {
    params.push(p.siteId, p.month, p.n);
    return '(?::uuid, ?::date, ?::bigint)';
  });
  // A closed month's rows go to the month after the workspace's last closed one, or this month if later: never
  // a closed month (months close in order, and this month only once it is over).
  // Sorted by workspace so concurrent flushes lock usage rows in the same order.
  const rows = await conn.execute<
    { workspace_id: string; month: string; pageviews: string; requests: string; notified: string[] }[]
  >(
    `insert into usage_months (workspace_id, month, "${column}")
       select s.workspace_id,
              case when v.month <= c.last then greatest(?::date, (c.last + interval '1 month')::date) else v.month end,
              sum(v.n)
         from (values ${values.join(', ')}) v(site_id, month, n)
         join sites s on s.id = v.site_id
         left join lateral (select max(b.month) as last from billing_months b where b.workspace_id = s.workspace_id) c on true
        group by 1, 2 order by 1, 2
     on conflict (workspace_id, month) do update
       set "${column}" = usage_months."${column}" + excluded."${column}", updated_at = now()
     returning workspace_id::text as workspace_id, to_char(month, 'YYYY-MM-DD') as month, pageviews::text as pageviews,
               requests::text as requests, notified`,
    params,
    'all',
    trx,
  );
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    month: r.month,
    pageviews: Number(r.pageviews),
    requests: Number(r.requests),
    notified: r.notified ?? [],
  }));
}

/**
 * Holds the months of the sites' workspaces open until this insert's transaction ends: closing a month locks its
 * workspace row (months.ts, closeOpenMonths), so it waits for the rows counted here, and a flush that comes after
 * the close sees the closed month (its statements start after the lock is granted) and counts its rows onwards.
 * A key-share lock: flushes never wait for one another, nor for anything but a month being closed or a plan change.
 */
async function holdMonthsOpen(conn: SqlConnection, trx: InsertTransaction | undefined, siteIds: string[]) {
  await conn.execute(
    `select 1 from workspaces where id in (select workspace_id from sites where id in (${siteIds.map(() => '?::uuid').join(', ')}))
      order by id for key share`,
    siteIds,
    'all',
    trx,
  );
}

export interface NoticeDeps {
  orm: Orm;
  mailer?: Mailer;
  logger?: Logger;
  /** The dashboard's address, for the link in notices. */
  appUrl?: () => string | undefined;
}

/**
 * Free notices for months that just grew: for each allowance and 80/100%, the first caller to add the
 * tag (`pageviews:80`) to `usage_months.notified` sends the mail to the workspace owners, so each is
 * sent once per month across nodes. When every owner's mail fails, the tag is given back and a later flush
 * that counts the workspace's month sends it again, not before a pause (`noticeRetry`, on this node).
 */
export async function sendDueNotices(deps: NoticeDeps, rows: UsageRow[]): Promise<number> {
  const due = rows.flatMap((r) => dueTags(r).map((tag) => ({ row: r, tag })));
  // Without a mailer nothing is claimed, so a node that can send still sends them.
  if (!due.length || !deps.mailer) return 0;
  const conn = deps.orm.em.getConnection();
  const ids = [...new Set(due.map((d) => d.row.workspaceId))];
  const workspaces = await conn.execute<{ id: string; name: string; plan: string }[]>(
    `select id::text as id, name, plan from workspaces where id in (${ids.map(() => '?').join(', ')})`,
    ids,
    'all',
  );
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  let sent = 0;
  for (const { row, tag } of due) {
    const ws = byId.get(row.workspaceId);
    if (!ws || planOf(ws.plan) !== 'Free') continue;
    const key = `${row.workspaceId} ${row.month} ${tag}`;
    if ((failedNotices.get(key)?.retryAt ?? 0) > noticeRetry.now()) continue;
    const claimed = await conn.execute<{ ok: number }[]>(
      `update usage_months set notified = array_append(notified, ?)
        where workspace_id = ? and month = ?::date and not (? = any(notified)) returning 1 as ok`,
      [tag, row.workspaceId, row.month, tag],
      'all',
    );
    if (!claimed.length) continue;
    const [allowance, pct] = tag.split(':') as [Allowance, string];
    const owners = await conn.execute<{ email: string }[]>(
      `select u.email from memberships m join users u on u.id = m.user_id
        where m.workspace_id = ? and m.role = 'owner' order by u.email`,
      [row.workspaceId],
      'all',
    );
    const limit = allowancesOf('Free')[allowance];
    let delivered = 0;
    for (const { email } of owners) {
      const mail = usageNoticeMail(email, {
        workspaceName: ws.name,
        allowance,
        percent: Number(pct),
        used: row[allowance],
        limit,
        month: row.month.slice(0, 7),
        link: deps.appUrl?.() ? `${deps.appUrl()}/billing` : undefined,
      });
      try {
        await deps.mailer.send(mail);
        delivered += 1;
      } catch (e) {
        deps.logger?.error(`usage: ${tag} notice for workspace ${row.workspaceId} not sent`, e);
      }
    }
    sent += delivered;
    if (delivered > 0 || !owners.length) failedNotices.delete(key);
    else await giveBack(conn, row, tag, key);
  }
  return sent;
}

/**
 * How long a notice no owner's mail took waits before a flush tries it again: `firstMs`, doubling at each failure up
 * to `maxMs`. Per node; `now` is the clock (tests move it).
 */
export const noticeRetry = { firstMs: 60_000, maxMs: 3_600_000, now: () => Date.now() };
/** Notices whose mails all failed, by workspace, month and tag: when to try again and the pause last waited. */
const failedNotices = new Map<string, { retryAt: number; pauseMs: number }>();
/** Failing notices remembered at most (a mail server down for every Free workspace at once). */
const FAILED_NOTICES_KEPT = 10_000;

/** Gives a notice's claim back so a later flush sends it, after a pause that doubles while it keeps failing. */
async function giveBack(conn: SqlConnection, row: UsageRow, tag: string, key: string) {
  await conn.execute(
    'update usage_months set notified = array_remove(notified, ?) where workspace_id = ? and month = ?::date',
    [tag, row.workspaceId, row.month],
    'run',
  );
  const last = failedNotices.get(key);
  const pauseMs = last ? Math.min(last.pauseMs * 2, noticeRetry.maxMs) : noticeRetry.firstMs;
  failedNotices.delete(key);
  if (failedNotices.size >= FAILED_NOTICES_KEPT) failedNotices.delete(failedNotices.keys().next().value as string);
  failedNotices.set(key, { retryAt: noticeRetry.now() + pauseMs, pauseMs });
}

/** Notice tags a month has earned (on the Free allowances) and not yet been sent. */
function dueTags(r: UsageRow): string[] {
  const limits = allowancesOf('Free');
  const tags: string[] = [];
  for (const allowance of ['pageviews', 'requests'] as const) {
    for (const pct of NOTICE_PERCENTS) {
      const tag = `${allowance}:${pct}`;
      if (r[allowance] >= (limits[allowance] * pct) / 100 && !r.notified.includes(tag)) tags.push(tag);
    }
  }
  return tags;
}

/** How long a flush waits for the notices its insert made due (a notice still being sent goes on after it). */
const NOTICE_WAIT_MS = 5_000;

/**
 * The ingest inserter with allowance counting: inserts, adds what was really inserted to
 * `usage_months` in the same transaction, then (after commit) sends any Free notices now due.
 */
export function countingInserter(deps: NoticeDeps) {
  return async <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]): Promise<number> => {
    let usage: UsageRow[] = [];
    const { inserted } = await insertRowsTallied(deps.orm, table, rows, {
      afterInsert: async (tally, trx, conn) => {
        usage = await addUsage(conn, trx, table, tally);
      },
    });
    if (usage.length) {
      // Waited for a few seconds at most: every table's flush on this node waits behind this one, and a mail
      // server that hangs held them all (the buffer filled and reports were refused). The rest goes on unwaited.
      const notices = sendDueNotices(deps, usage).catch((e) => deps.logger?.error('usage: notices failed', e));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        notices,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, NOTICE_WAIT_MS);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
    return inserted;
  };
}

export interface Usage {
  /** `YYYY-MM-DD`, first day of the UTC month. */
  month: string;
  plan: Plan;
  pageviews: number;
  requests: number;
  limits: Record<Allowance, number>;
  /** Free only: server-request logging is paused until the month turns. */
  paused: boolean;
  /** Notices sent this month, e.g. `pageviews:80`. */
  notified: string[];
}

/** A workspace's usage in the month of `now` (zeros when nothing was counted yet). */
export async function usageOf(em: EntityManager, workspaceId: string, now: Date = new Date()): Promise<Usage> {
  const month = monthOf(now);
  const [row] = await em
    .getConnection()
    .execute<{ plan: string; pageviews: string | null; requests: string | null; notified: string[] | null }[]>(
      `select w.plan, u.pageviews::text as pageviews, u.requests::text as requests, u.notified
         from workspaces w left join usage_months u on u.workspace_id = w.id and u.month = ?::date
        where w.id = ?`,
      [month, workspaceId],
      'all',
    );
  const plan = planOf(row?.plan);
  const requests = Number(row?.requests ?? 0);
  return {
    month,
    plan,
    pageviews: Number(row?.pageviews ?? 0),
    requests,
    limits: allowancesOf(plan),
    paused: pausedAt(plan, requests),
    notified: row?.notified ?? [],
  };
}
