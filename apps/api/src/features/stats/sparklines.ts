// The sites list's sparklines: people and pageviews per day of the last week, for every site the caller
// sees, asked of the engine site by site inside one of the workspace's stats slots, and shared on the
// node for a minute (the list is opened often; a day's figures barely move in a minute).
import type { EntityManager } from '@mikro-orm/postgresql';
import { type SitesSparklinesOutput, SPARKLINE_DAYS } from '@us/shared';
import { visibleSites } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { siteCtx } from '../../analytics/site-ctx.ts';
import { inWorkspaceSlot, type StatsDeps } from '../../analytics/site-slot.ts';
import { answer } from './engine.ts';
import { sharedFor } from './shared-answers.ts';
import { normalise } from './spec.ts';

const SHARE_MS = 60_000;

export async function sitesSparklines(deps: StatsDeps, em: EntityManager, actor: Actor): Promise<SitesSparklinesOutput> {
  const { workspaceId, sites } = await visibleSites(em, actor);
  const key = `sparklines:${workspaceId}:${sites.map((s) => `${s.id}@${s.timezone}`).join(',')}`;
  return sharedFor(key, SHARE_MS, () =>
    inWorkspaceSlot(deps, workspaceId, async () => {
      const out: SitesSparklinesOutput['sites'] = [];
      for (const site of sites) {
        const ctx = siteCtx(deps.statsOrm.em.fork(), site);
        const series = await answer(ctx, normalise({ metrics: 'pageviews', by: 'day', days: SPARKLINE_DAYS }, ctx.today));
        out.push({
          id: site.id,
          days: series.rows.map((r) => r.value as string),
          visitors: series.rows.map((r) => r.counts.visitors ?? 0),
          pageviews: series.rows.map((r) => r.counts.pageviews ?? 0),
        });
      }
      return { sites: out };
    }),
  );
}
