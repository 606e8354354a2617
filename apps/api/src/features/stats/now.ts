// "Now": who is on a site these minutes, and its last pageviews (the dashboard polls it every few seconds
// while a tab is visible). Two small statements on the (site_id, at) index of today's partitions, shared
// for a few seconds by every tab and every caller on this node.
import type { EntityManager } from '@mikro-orm/postgresql';
import { NOW, type NowOutput, type SitesNowOutput } from '@us/shared';
import { loadSite, visibleSites } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { SOURCE_SQL } from '../../analytics/catalogue.ts';
import { run } from '../../analytics/runner.ts';
import { type SiteCtx, siteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, laneSql, Params, statement } from '../../analytics/sql.ts';
import type { Deps } from '../../core/deps.ts';
import { allEnded } from '../../core/map-limited.ts';
import { sharedFor } from './shared-answers.ts';

/** The UTC `day` partitions a time from `since` on can be in (rows are partitioned by the UTC day of `at`). */
const daysSince = (p: Params, since: Date) => `day >= ${p.add(since.toISOString().slice(0, 10), 'date')}`;

function visitorsNow(ctx: SiteCtx, since: Date) {
  const p = new Params();
  return statement<{ visitors: number; pageviews: number }>(
    `select count(distinct visitor)::int as visitors, count(*)::int as pageviews from pageviews
      where site_id = ${p.add(ctx.siteId, 'uuid')} and ${daysSince(p, since)} and at >= ${p.add(since.toISOString(), 'timestamptz')}
        and ${laneCond(p, 'pageviews', ctx.windows, 'human')}`,
    p,
  );
}

function lastPageviews(ctx: SiteCtx, since: Date) {
  const p = new Params();
  return statement<{ at: Date; path: string; source: string | null; country: string | null; device: string; lane: string }>(
    `select at, path, nullif(${SOURCE_SQL}, '') as source, nullif(trim(country), '') as country, device,
            ${laneSql(p, 'pageviews', ctx.windows)} as lane
       from pageviews
      where site_id = ${p.add(ctx.siteId, 'uuid')} and ${daysSince(p, since)} and at >= ${p.add(since.toISOString(), 'timestamptz')}
      order by at desc limit ${p.add(NOW.recent, 'int')}`,
    p,
  );
}

const minutesAgo = (now: Date, minutes: number) => new Date(now.getTime() - minutes * 60_000);

/** Visitors now and the last pageviews of one site. */
export async function siteNow(deps: Pick<Deps, 'statsOrm'>, em: EntityManager, actor: Actor, siteId: string): Promise<NowOutput> {
  const site = await loadSite(em, actor, siteId);
  return sharedFor(`site:${site.id}`, NOW.shareMs, async () => {
    const now = new Date();
    const ctx = siteCtx(deps.statsOrm.em.fork(), site, now);
    const [[counts], recent] = await allEnded([
      run(ctx.em, visitorsNow(ctx, minutesAgo(now, NOW.minutes))),
      run(ctx.em, lastPageviews(ctx, minutesAgo(now, NOW.recentMinutes))),
    ]);
    return {
      asOf: now.toISOString(),
      minutes: NOW.minutes,
      visitors: counts?.visitors ?? 0,
      pageviews: counts?.pageviews ?? 0,
      recent: recent.map((r) => ({
        ...r,
        at: new Date(r.at).toISOString(),
        lane: r.lane as NowOutput['recent'][number]['lane'],
      })),
    };
  });
}

/** Visitors now of every site the caller sees (the sites list), in one statement. */
export async function sitesNow(deps: Pick<Deps, 'statsOrm'>, em: EntityManager, actor: Actor): Promise<SitesNowOutput> {
  const { workspaceId, sites } = await visibleSites(em, actor);
  const ids = sites.map((s) => s.id);
  return sharedFor(`sites:${workspaceId}:${ids.join(',')}`, NOW.shareMs, async () => {
    const now = new Date();
    const since = minutesAgo(now, NOW.minutes);
    const counts = new Map<string, number>();
    if (ids.length) {
      // Bot windows are per site: sites with windows are asked one by one, the rest in one statement. Split in one
      // pass (a list filtered against the other was quadratic: 10,000 sites held the event loop ~0.85 s a poll).
      const plain: string[] = [];
      const windowed: SiteCtx[] = [];
      for (const s of sites) {
        const ctx = siteCtx(em, s, now);
        if (ctx.windows.length) windowed.push(ctx);
        else plain.push(s.id);
      }
      const p = new Params();
      const rows = plain.length
        ? await run(
            deps.statsOrm.em.fork(),
            statement<{ site_id: string; visitors: number }>(
              `select site_id::text as site_id, count(distinct visitor)::int as visitors from pageviews
                where site_id = any(${p.add(plain, 'uuid[]')}) and ${daysSince(p, since)}
                  and at >= ${p.add(since.toISOString(), 'timestamptz')} and lane = 'human'
                group by site_id`,
              p,
            ),
          )
        : [];
      for (const r of rows) counts.set(r.site_id, r.visitors);
      for (const ctx of windowed) {
        const [c] = await run(deps.statsOrm.em.fork(), visitorsNow(ctx, since));
        counts.set(ctx.siteId, c?.visitors ?? 0);
      }
    }
    return { asOf: now.toISOString(), minutes: NOW.minutes, sites: ids.map((id) => ({ id, visitors: counts.get(id) ?? 0 })) };
  });
}
