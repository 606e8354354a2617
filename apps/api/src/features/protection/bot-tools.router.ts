import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { AiTrafficInput, AiTrafficOutput, aiTraffic } from './ai-traffic.ts';
import { DryRunInput, DryRunOutput, dryRun } from './dry-run.ts';
import { TryRequestInput, TryRequestOutput, tryRequest } from './try-request.ts';

/**
 * The Protection page's own tools, on the dashboard's tRPC face only: no `openapi` or `mcp` meta (the
 * spec's REST routes and MCP tools are fixed). Each needs `bot:read`; those that read stored traffic
 * (dry run, AI traffic) also `analytics:read`, checked by the service.
 */
export const botToolsRouter = router({
  /** A proposed {mode, bots, rules} replayed over the last 7 days of stored requests; changes nothing. */
  dryRun: actorProcedure
    .meta({ auth: 'any', scope: 'bot:read', readOnly: true })
    .input(DryRunInput)
    .output(DryRunOutput)
    .mutation(({ ctx, input }) => dryRun(ctx.deps, ctx.em, ctx.actor, input)),

  /** One made-up request decided under the saved (or proposed) settings; changes nothing. */
  tryRequest: actorProcedure
    .meta({ auth: 'any', scope: 'bot:read', readOnly: true })
    .input(TryRequestInput)
    .output(TryRequestOutput)
    .mutation(({ ctx, input }) => tryRequest(ctx.em, ctx.actor, input)),

  /** Per page: AI crawlers that read it beside the people AI assistants and AI search sent to it. */
  aiTraffic: actorProcedure
    .meta({ auth: 'any', scope: 'bot:read' })
    .input(AiTrafficInput)
    .output(AiTrafficOutput)
    .query(({ ctx, input }) => aiTraffic(ctx.deps, ctx.em, ctx.actor, input)),
});
