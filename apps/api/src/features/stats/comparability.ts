// Whether a previous period can be shown: comparing with days before the site recorded anything would
// show zeros as if traffic had collapsed, so the answer says since when the site has data instead.
import { CLICKS_EXCLUDED } from '../../analytics/catalogue.ts';
import { IMPORTED_DONE } from '../../analytics/rollup-source.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { Params, type Statement, statement, tzParam } from '../../analytics/sql.ts';

export interface Comparability {
  available: boolean;
  reason: string | null;
}

type FirstDaysRow = { raw_first: string | null; rollup_first: string | null };

/** The site's first local day with raw rows of `table`, and its first rolled-up (or imported) day. */
function firstDaysStatement(ctx: SiteCtx, table: 'pageviews' | 'events' | 'requests'): Statement<FirstDaysRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const site = p.add(ctx.siteId, 'uuid');
  const clicks = table === 'events' ? ` and ${CLICKS_EXCLUDED}` : '';
  const sql = `
    select
      (select to_char((min(at) at time zone ${tz})::date, 'YYYY-MM-DD') from ${table} where site_id = ${site}${clicks}) as raw_first,
      (select to_char(least((select min(day) from daily_rollups where site_id = ${site}),
                            (select min(day) from imported_rollups where site_id = ${site} and ${IMPORTED_DONE})), 'YYYY-MM-DD')) as rollup_first`;
  return statement(sql, p);
}

/** The site's first local day with data: raw rows of `table`, or any rollup (or imported day); null without any. */
export async function firstDataDay(ctx: SiteCtx, table: 'pageviews' | 'events' | 'requests'): Promise<string | null> {
  const [row] = await run(ctx.em, firstDaysStatement(ctx, table));
  const firsts = [row?.raw_first, row?.rollup_first].filter((d): d is string => typeof d === 'string');
  return firsts.sort()[0] ?? null;
}

/** Available when the site has some row (raw rows of the table, or any rollup) before `from`. */
export async function comparability(
  ctx: SiteCtx,
  table: 'pageviews' | 'events' | 'requests',
  from: string,
): Promise<Comparability> {
  const first = await firstDataDay(ctx, table);
  if (first === null) return { available: false, reason: `No data before ${from}: the site has no data yet` };
  if (first >= from) return { available: false, reason: `No data before ${from}: the site has recorded since ${first}` };
  return { available: true, reason: null };
}
