import { router } from '../trpc/init.ts';
import { authRouter } from './auth.ts';
import { billingRouter } from './billing.ts';
import { botToolsRouter } from './bot-tools.ts';
import { botRouter } from './bot.ts';
import { exportRouter } from './export.ts';
import { hostnamesRouter } from './hostnames.ts';
import { internalLinkRouter } from './internal-link.ts';
import { journeysRouter } from './journeys.ts';
import { liveRouter } from './live.ts';
import { sharesRouter } from './shares.ts';
import { reportsRouter } from './reports.ts';
import { getMe } from './me.ts';
import { membersRouter } from './members.ts';
import { resultsRouter } from './results.ts';
import { searchRouter } from './search.ts';
import { siteKeysRouter } from './site-keys.ts';
import { siteSettingsRouter } from './site-settings.ts';
import { sitesRouter } from './sites.ts';
import { statsRouter } from './stats.ts';
import { tokensRouter } from './tokens.ts';
import { workspaceRouter } from './workspace.ts';

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
  botTools: botToolsRouter,
  bot: botRouter,
  export: exportRouter,
  search: searchRouter,
  billing: billingRouter,
});

export type AppRouter = typeof appRouter;
