// The People visitors of a prefix goal (a path ending in `*`) per alert period, from raw rows: the stats
// series filters a page by equality only. Periods reach 4 weeks back, well inside the raw days.
import type { AlertWindow } from '@us/shared';
import { addDays } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, localDaySql, localHourSql, Params, rangeCond, statement, tzParam, utcDaysCond } from '../../analytics/sql.ts';
import { type GoalMatcher, pathMatchSql } from '../results/index.ts';

/** Visitors per key (`YYYY-MM-DD`, or `YYYY-MM-DDTHH:00` by hour, as the stats series names them). */
export async function prefixVisitors(
  ctx: SiteCtx,
  matcher: GoalMatcher,
  window: AlertWindow,
  keys: string[],
): Promise<Map<string, number>> {
  const days = [...new Set(keys.map((k) => k.slice(0, 10)))].sort();
  const first = days[0];
  const last = days.at(-1);
  if (first === undefined || last === undefined) return new Map();
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const value = window === 'hour' ? localHourSql(tz) : localDaySql(tz);
  // Only the UTC partitions that can hold the periods' local days, not every day between them.
  const utcDays = [...new Set(days.flatMap((d) => [addDays(d, -1), d, addDays(d, 1)]))];
  const sql = `
    select ${value} as value, count(distinct (${localDaySql(tz)}, visitor))::int as visitors
    from pageviews
    where site_id = ${p.add(ctx.siteId, 'uuid')}
      and ${rangeCond(p, tz, { from: first, to: last })}${utcDaysCond(p, utcDays)}
      and ${pathMatchSql('path', p.add(matcher.kind, 'text'), p.add(matcher.value, 'text'))}
      and ${laneCond(p, 'pageviews', ctx.windows, 'human')}
      and ${value} = any(${p.add(keys, 'text[]')})
    group by 1`;
  const rows = await run(ctx.em, statement<{ value: string; visitors: number }>(sql, p));
  return new Map(rows.map((r) => [r.value, r.visitors]));
}
