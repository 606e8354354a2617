import type { EntityManager } from '@mikro-orm/postgresql';
import { BOT_ACTIONS, type BotAction, type BotDecisionsQuery, type BotDecisionsReport } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import { addDays, daysOf } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type StatsDeps, withSite } from '../../analytics/site-slot.ts';
import { localDaySql, Params, rangeCond, statement, tzParam } from '../../analytics/sql.ts';
import { scopeMissing } from '../../core/errors.ts';
import { NOT_DECIDED } from './record-decision.ts';
import { setupProblemsOf } from './setup-problems.ts';

type Counts = Record<BotAction, number>;

/** Rows of the report's table, most first. */
export const DECISION_ROWS = 100;

/** The stored decision as one of the three actions: anything else (null: older records) was served. */
const ACTION_SQL = `case when decision in ('challenge', 'deny') then decision else 'allow' end`;

const zero = (): Counts => ({ allow: 0, challenge: 0, deny: 0 });
const asAction = (a: string): BotAction => (BOT_ACTIONS.includes(a as BotAction) ? (a as BotAction) : 'allow');

/** Every request of the site over the range, except the team's own (the internal lane). */
function scope(ctx: SiteCtx, p: Params, range: { from: string; to: string }, tz: string) {
  return `site_id = ${p.add(ctx.siteId, 'uuid')}
      and ${rangeCond(p, tz, range)}
      and lane <> 'internal'`;
}

interface DayRow {
  day: string;
  action: string;
  category: string | null;
  n: string;
}

interface ReasonRow {
  action: string;
  reason: string;
  kind: string | null;
  category: string | null;
  name: string | null;
  n: string;
}

async function report(ctx: SiteCtx, days: number): Promise<Omit<BotDecisionsReport, 'setupProblems' | 'otherHostnames'>> {
  const range = { from: addDays(ctx.today, -(days - 1)), to: ctx.today };

  const p1 = new Params();
  const tz1 = tzParam(p1, ctx.timezone);
  const byDay = statement<DayRow>(
    `select ${localDaySql(tz1)} as day, ${ACTION_SQL} as action, bot_category as category, count(*) as n
    from requests
    where ${scope(ctx, p1, range, tz1)}
    group by 1, 2, 3`,
    p1,
  );

  const p2 = new Params();
  const tz2 = tzParam(p2, ctx.timezone);
  const notDecided = p2.add(NOT_DECIDED, 'text');
  const byReason = statement<ReasonRow>(
    `select ${ACTION_SQL} as action, coalesce(nullif(reason, ''), ${notDecided}) as reason, kind,
      bot_category as category, bot_name as name, count(*) as n
    from requests
    where ${scope(ctx, p2, range, tz2)}
    group by 1, 2, 3, 4, 5
    order by n desc, 1, 2, 3, 4, 5
    limit ${DECISION_ROWS}`,
    p2,
  );

  const [dayRows, reasonRows] = await Promise.all([run(ctx.em, byDay), run(ctx.em, byReason)]);
  const totals = zero();
  const perDay = new Map(daysOf(range).map((d) => [d, zero()]));
  const perCategory = new Map<string | null, Counts>();
  for (const r of dayRows) {
    const n = Number(r.n);
    const action = asAction(r.action);
    totals[action] += n;
    const day = perDay.get(r.day);
    if (day) day[action] += n;
    const cat = perCategory.get(r.category) ?? zero();
    cat[action] += n;
    perCategory.set(r.category, cat);
  }
  const sum = (c: Counts) => c.allow + c.challenge + c.deny;
  return {
    from: range.from,
    to: range.to,
    totals: { ...totals, total: sum(totals) },
    series: [...perDay].map(([day, c]) => ({ day, ...c })),
    byCategory: [...perCategory]
      .map(([category, c]) => ({ category, ...c }))
      .sort((a, b) => sum(b) - sum(a) || String(a.category).localeCompare(String(b.category))),
    rows: reasonRows.map((r) => ({
      action: asAction(r.action),
      reason: r.reason,
      kind: r.kind,
      category: r.category,
      name: r.name,
      count: Number(r.n),
    })),
  };
}

/**
 * GET /v1/sites/{id}/bot/decisions: what the gate did with every request of the last `days` site-local days
 * except the team's own, by action, reason, crawler category and name, with totals and a series per day,
 * and the site's setup problems (hostnames a check cannot return to, `setup-problems.ts`).
 * The report shows traffic, so besides `bot:read` (checked by the procedure) it needs `analytics:read`.
 * Runs on the stats pool within the workspace's stats slots; `days` ≤ 90 is always raw rows.
 */
export async function decisionsReport(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: BotDecisionsQuery,
): Promise<BotDecisionsReport> {
  if (!actor.scopes.includes('analytics:read')) {
    throw scopeMissing(
      'analytics:read',
      'the decisions report shows traffic, so it needs analytics access besides bot:read; ask a workspace owner for a role or token that has both',
    );
  }
  return withSite(deps, em, actor, input.id, async (ctx, site) => {
    const [decisions, problems] = await Promise.all([report(ctx, input.days), setupProblemsOf(deps, em, site)]);
    return { ...decisions, ...problems };
  });
}
