import { alertsRouter } from './features/alerts/alerts.router.ts';
import { annotationsRouter } from './features/annotations/annotations.router.ts';
import { authRouter } from './features/auth/auth.router.ts';
import { billingRouter } from './features/billing/billing.router.ts';
import { changesRouter } from './features/changes/changes.router.ts';
import { exportRouter } from './features/export/export.router.ts';
import { funnelsRouter } from './features/funnels/funnels.router.ts';
import { hostnamesRouter } from './features/hostnames/hostnames.router.ts';
import { importsRouter } from './features/imports/imports.router.ts';
import { internalLinkRouter } from './features/internal-link/internal-link.router.ts';
import { journeysRouter } from './features/journeys/journeys.router.ts';
import { getMe } from './features/me/me.router.ts';
import { membersRouter } from './features/members/members.router.ts';
import { botRouter } from './features/protection/bot.router.ts';
import { botToolsRouter } from './features/protection/bot-tools.router.ts';
import { reportsRouter } from './features/reports/reports.router.ts';
import { resultsRouter } from './features/results/results.router.ts';
import { searchRouter } from './features/search/search.router.ts';
import { segmentsRouter } from './features/segments/segments.router.ts';
import { sharesRouter } from './features/shares/shares.router.ts';
import { siteKeysRouter } from './features/site-keys/site-keys.router.ts';
import { siteSettingsRouter } from './features/sites/site-settings.router.ts';
import { sitesRouter } from './features/sites/sites.router.ts';
import { liveRouter } from './features/stats/live.router.ts';
import { statsRouter } from './features/stats/stats.router.ts';
import { tokensRouter } from './features/tokens/tokens.router.ts';
import { workspaceRouter } from './features/workspace/workspace.router.ts';
import { router } from './procedures/init.ts';

/** The whole API. REST routes, the OpenAPI document and the MCP tools are all generated from it. */
export const appRouter = router({
  auth: authRouter,
  me: router({ get: getMe }),
  workspace: workspaceRouter,
  members: membersRouter,
  tokens: tokensRouter,
  sites: sitesRouter,
  siteKeys: siteKeysRouter,
  siteSettings: siteSettingsRouter,
  hostnames: hostnamesRouter,
  internalLink: internalLinkRouter,
  stats: statsRouter,
  live: liveRouter,
  shares: sharesRouter,
  reports: reportsRouter,
  journeys: journeysRouter,
  results: resultsRouter,
  funnels: funnelsRouter,
  imports: importsRouter,
  segments: segmentsRouter,
  changes: changesRouter,
  annotations: annotationsRouter,
  alerts: alertsRouter,
  botTools: botToolsRouter,
  bot: botRouter,
  export: exportRouter,
  search: searchRouter,
  billing: billingRouter,
});

export type AppRouter = typeof appRouter;
