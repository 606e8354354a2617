import { NowInput, NowOutput, SitesNowOutput, SitesSparklinesOutput, zEmpty } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { siteNow, sitesNow } from './now.ts';
import { sitesSparklines } from './sparklines.ts';

/**
 * The dashboard's live figures, on its tRPC face only (no `openapi` or `mcp` meta: the spec's REST routes
 * and MCP tools are fixed). Polled every few seconds while a tab is visible; answers are shared on the
 * node for 3 seconds (features/stats/now.ts).
 */
export const liveRouter = router({
  /** People on the site in the last 5 minutes, and its last pageviews (any lane). */
  site: actorProcedure
    .meta({ auth: 'any', scope: 'analytics:read', readOnly: true, shareable: true })
    .input(NowInput)
    .output(NowOutput)
    .query(({ ctx, input }) => siteNow(ctx.deps, ctx.em, ctx.actor, input.id)),

  /** People in the last 5 minutes on each site the caller sees (the sites list). */
  sites: actorProcedure
    .meta({ auth: 'any', scope: 'analytics:read', readOnly: true })
    .input(zEmpty.optional())
    .output(SitesNowOutput)
    .query(({ ctx }) => sitesNow(ctx.deps, ctx.em, ctx.actor)),

  /** People and pageviews per day of the last 7 days of each site the caller sees (shared a minute). */
  sparklines: actorProcedure
    .meta({ auth: 'any', scope: 'analytics:read', readOnly: true })
    .input(zEmpty.optional())
    .output(SitesSparklinesOutput)
    .query(({ ctx }) => sitesSparklines(ctx.deps, ctx.em, ctx.actor)),
});
