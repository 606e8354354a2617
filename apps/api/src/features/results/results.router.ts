import { ExperimentResults, ExperimentResultsQuery, GoalResults, GoalResultsQuery } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { siteExperimentResults, siteGoalResults } from './service.ts';

const tags = ['Analytics'];

export const resultsRouter = router({
  goals: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      mcp: {
        tool: 'get_site_goal_results',
        description:
          "How often each of the site's goals was reached over `days` (1 = today so far, default 7): completions (matching events or pageviews of People), the People sessions reaching it, the rate out of all People visits, and a daily series. Goals count stored traffic, so a new goal shows earlier sessions too. Days older than 90 give completions only (see coverage.note).",
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/goals/results',
        summary: 'Completions, sessions reaching each goal and the rate out of all People visits',
        description:
          'A session is a People visit: one visitor code from a session start to the next, within one UTC day. rate = sessions / visits in percent (two decimals). Days older than 90 are answered from daily rollups: completions only, and coverage says what was not answered.',
        tags,
      },
    })
    .input(GoalResultsQuery)
    .output(GoalResults)
    .query(({ ctx, input }) => siteGoalResults(ctx.deps, ctx.em, ctx.actor, input)),

  experiment: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      mcp: {
        tool: 'get_site_experiment_results',
        description:
          'Results of one A/B experiment (`key` from list_site_experiments) over `days` (1-90, default 7): per variant the People sessions shown it, how many reached the goal (`goal`: a goal id; default the first event goal), the rate and the events sent, the two largest variants compared (pooled two-sided z-test p, difference with a 95 % interval) and a verdict in words. Variants with fewer than 5 sessions are listed without figures.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/experiments/{key}/results',
        summary:
          'Per variant: sessions shown, sessions reaching the goal, rate (percent) and events; p between the two largest (difference and interval in percentage points)',
        description:
          'Variants with fewer than 5 sessions are listed without figures; comparison (p, difference of rates b − a with Newcombe’s 95 % interval) appears only when the two largest variants have at least 5 sessions each. An unknown goal id is 400 with field goal; an unknown key is 404.',
        tags,
      },
    })
    .input(ExperimentResultsQuery)
    .output(ExperimentResults)
    .query(({ ctx, input }) => siteExperimentResults(ctx.deps, ctx.em, ctx.actor, input)),
});
