// The custom property keys of a site (GET /v1/sites/{id}/properties, list_site_properties): which keys its
// pages and events carried over the last 30 days, the most used first, so a question can name `prop:<key>`.
import { PROPERTY_KEY_DAYS, PROPERTY_LIMITS, type SiteProperties } from '@us/shared';
import { CLICKS_EXCLUDED } from '../../analytics/catalogue.ts';
import { addDays } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { Params, rangeCond, type Statement, statement, tzParam } from '../../analytics/sql.ts';
import { readSettings } from '../sites/index.ts';

type KeyRow = { key: string; pageviews: string | number; events: string | number };

/** People rows of both tables carrying properties, one row per key they hold, counted per key. */
function keysStatement(ctx: SiteCtx, from: string): Statement<KeyRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const site = p.add(ctx.siteId, 'uuid');
  const days = { from, to: ctx.today };
  const rows = (table: string, extra: string) =>
    `from ${table} where site_id = ${site} and ${rangeCond(p, tz, days)} and lane = 'human' and props is not null${extra}`;
  // One more than listed: tells whether the list was cut.
  const sql = `
    select key, sum(pv) as pageviews, sum(ev) as events from (
      select jsonb_object_keys(props) as key, 1 as pv, 0 as ev ${rows('pageviews', '')}
      union all
      select jsonb_object_keys(props) as key, 0 as pv, 1 as ev ${rows('events', ` and ${CLICKS_EXCLUDED}`)}
    ) k
    group by key
    order by sum(pv) + sum(ev) desc, key
    limit ${PROPERTY_LIMITS.listed + 1}`;
  return statement<KeyRow>(sql, p);
}

export async function propertyKeysOf(ctx: SiteCtx, settings: Record<string, unknown> | null): Promise<SiteProperties> {
  const from = addDays(ctx.today, -(PROPERTY_KEY_DAYS - 1));
  const rows = await run(ctx.em, keysStatement(ctx, from));
  return {
    from,
    to: ctx.today,
    keys: rows
      .slice(0, PROPERTY_LIMITS.listed)
      .map((r) => ({ key: r.key, pageviews: Number(r.pageviews), events: Number(r.events) })),
    truncated: rows.length > PROPERTY_LIMITS.listed,
    kept: readSettings(settings).keptProperties,
  };
}
