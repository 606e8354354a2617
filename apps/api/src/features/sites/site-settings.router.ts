import {
  CreateExperimentInput,
  CreateGoalInput,
  ExperimentList,
  ExperimentOutput,
  ExperimentParams,
  GoalList,
  GoalOutput,
  GoalParams,
  SiteIdInput,
  SiteOutput,
  UpdateExperimentInput,
  UpdateSiteSettingsInput,
} from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import {
  createExperiment,
  createGoal,
  deleteExperiment,
  deleteGoal,
  listExperiments,
  listGoals,
  updateExperiment,
  updateSettings,
} from './settings.ts';

const tags = ['Site settings'];

export const siteSettingsRouter = router({
  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'update_site_settings',
        description:
          "Replace any of the site's lists (`internalNetworks` CIDRs counted as your own team, `botWindows` of time when traffic counts as bots, `goals`, `experiments`, `keptProperties`: up to 10 custom property keys meant to stay past 90 days, `scriptFeatures`: the parts of the page script beside its core: events, clicks, navigation); lists not named are kept. Each list holds at most 100 items.",
      },
      openapi: {
        method: 'PATCH',
        path: '/v1/sites/{id}/settings',
        summary: 'Replace any of the lists internalNetworks, botWindows, goals, experiments; the others are kept',
        description:
          'Answers the whole site. A refused value is 400 with its field, such as internalNetworks[0] or goals[1].match. A goals list replaces every goal at once.',
        tags,
      },
    })
    .input(UpdateSiteSettingsInput)
    .output(SiteOutput)
    .mutation(({ ctx, input }) => updateSettings(ctx.em, ctx.actor, input)),

  listGoals: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_site_goals',
        description:
          "The site's goals: event goals (an event name) and path goals (a page path; a trailing * matches every path starting with the rest).",
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/goals', summary: 'The site’s goals', tags },
    })
    .input(SiteIdInput)
    .output(GoalList)
    .query(({ ctx, input }) => listGoals(ctx.em, ctx.actor, input.id)),

  createGoal: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_site_goal',
        description:
          'Add a goal (`id` of the site, `name`, `type`: event or path, `match`: the event name or page path). The goal id is derived from the name.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/goals',
        summary: 'Add a goal; its id is derived from its name',
        description:
          'event goals match an event name; path goals match a page path (a trailing * matches every path starting with the rest). Goals read stored events, so earlier sessions count too. An id already taken is 409.',
        tags,
      },
    })
    .input(CreateGoalInput)
    .output(GoalOutput)
    .mutation(({ ctx, input }) => createGoal(ctx.em, ctx.actor, input)),

  deleteGoal: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site_goal',
        description: 'Remove a goal (`id` of the site, `goal`: the goal id from list_site_goals).',
      },
      openapi: { method: 'DELETE', path: '/v1/sites/{id}/goals/{goal}', summary: 'Remove a goal by its id', tags },
    })
    .input(GoalParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteGoal(ctx.em, ctx.actor, input)),

  listExperiments: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_site_experiments',
        description: "The site's A/B experiments: key (as in the page's data-exp), variants and status.",
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/experiments', summary: 'The site’s A/B experiments', tags },
    })
    .input(SiteIdInput)
    .output(ExperimentList)
    .query(({ ctx, input }) => listExperiments(ctx.em, ctx.actor, input.id)),

  createExperiment: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_site_experiment',
        description:
          "Add an A/B experiment (`id` of the site, `key` as used in the page's data-exp, at least two `variants`, optional `name` and `status`: draft, running or stopped).",
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/experiments',
        summary: 'Add an A/B experiment (status draft unless given)',
        description: 'key equals the data-exp name in the page; at least two distinct variants. A key already used is 409.',
        tags,
      },
    })
    .input(CreateExperimentInput)
    .output(ExperimentOutput)
    .mutation(({ ctx, input }) => createExperiment(ctx.em, ctx.actor, input)),

  updateExperiment: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'update_site_experiment',
        description: 'Change an experiment (`id` of the site, `key`): its `name`, `variants` or `status`.',
      },
      openapi: {
        method: 'PATCH',
        path: '/v1/sites/{id}/experiments/{key}',
        summary: 'Change an experiment’s status, variants or name',
        description: 'Any status may follow any other. name null removes the name.',
        tags,
      },
    })
    .input(UpdateExperimentInput)
    .output(ExperimentOutput)
    .mutation(({ ctx, input }) => updateExperiment(ctx.em, ctx.actor, input)),

  deleteExperiment: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site_experiment',
        description: 'Remove an experiment (`id` of the site, `key`). Exposures already recorded stay in the analytics.',
      },
      openapi: { method: 'DELETE', path: '/v1/sites/{id}/experiments/{key}', summary: 'Remove an experiment', tags },
    })
    .input(ExperimentParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteExperiment(ctx.em, ctx.actor, input)),
});
