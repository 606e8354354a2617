import {
  AlertDeliveries,
  AlertDeliveriesInput,
  AlertList,
  AlertListInput,
  AlertOutput,
  AlertParams,
  CreateAlertInput,
  CreateAlertOutput,
  UnsubscribeAlertInput,
  UnsubscribeAlertOutput,
  UpdateAlertInput,
} from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure, publicProcedure } from '../../procedures/procedures.ts';
import { listDeliveries } from './deliveries.ts';
import { createAlert, deleteAlert, getAlert, listAlerts, updateAlert } from './rules.ts';
import { takeOverAlert } from './take-over.ts';
import { unsubscribeFromAlert } from './unsubscribe.ts';

const tags = ['Alerts'];

/**
 * Alerts (docs/product/alerts.md): rules that e-mail confirmed addresses, and optionally POST a signed
 * webhook, when a site's traffic spikes or drops, a goal's conversions fall, or its first pageview arrives.
 * The job that looks at them is features/alerts/alerts-job.ts. Scopes as e-mail reports': whatever makes
 * the service send figures somewhere needs `analytics:read` beside `sites:write`.
 */
export const alertsRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_alerts',
        description:
          "The site's alert rules (`id` of the site): kind (traffic_spike, traffic_drop, goal_drop, first_pageview), thresholdPercent, goal, window (hour or day), recipients with whether each confirmed, webhookUrl, enabled, lastFiredAt.",
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/alerts', summary: 'The site’s alert rules', tags },
    })
    .input(AlertListInput)
    .output(AlertList)
    .query(({ ctx, input }) => listAlerts(ctx.em, ctx.actor, input.id)),

  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      openapi: { method: 'GET', path: '/v1/sites/{id}/alerts/{alert}', summary: 'One alert rule', tags },
    })
    .input(AlertParams)
    .output(AlertOutput.pick({ alert: true }))
    .query(({ ctx, input }) => getAlert(ctx.em, ctx.actor, input)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: ['analytics:read', 'sites:write'],
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_alert',
        description:
          'Be told when something happens on a site (`id` of the site). `kind`: traffic_spike or traffic_drop (visitors at least `thresholdPercent`% above or below the average of the same hour or weekday over the previous 4 weeks; only once that average is 20 visitors or more), goal_drop (the same for visitors completing `goal`, a goal’s name), first_pageview (once, when the site records its first pageview). `window`: hour or day (default day). `recipients`: e-mail addresses (a new one is asked to confirm first); `webhookUrl`: an https URL that gets a signed POST. The answer’s webhookSecret is shown only once. A site keeps at most 20 rules.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/alerts',
        summary: 'Add an alert rule',
        description: 'A site keeps at most 20 rules (409 past them). The webhook secret is in this answer only.',
        tags,
      },
    })
    .input(CreateAlertInput)
    .output(CreateAlertOutput)
    .mutation(({ ctx, input }) => createAlert(ctx.deps, ctx.em, ctx.actor, input)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: ['analytics:read', 'sites:write'],
      idempotent: true,
      mcp: {
        tool: 'update_alert',
        description:
          'Change an alert rule (`id` of the site, `alert`: its id from list_alerts): thresholdPercent, goal, window, recipients (the whole list), webhookUrl (null removes it; a new URL gets a new secret, in this answer only) or enabled (false pauses it).',
      },
      openapi: { method: 'PATCH', path: '/v1/sites/{id}/alerts/{alert}', summary: 'Change or pause an alert rule', tags },
    })
    .input(UpdateAlertInput)
    .output(AlertOutput)
    .mutation(({ ctx, input }) => updateAlert(ctx.deps, ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      destructive: true,
      status: 204,
      mcp: { tool: 'delete_alert', description: 'Remove an alert rule (`id` of the site, `alert`: its id from list_alerts).' },
      openapi: { method: 'DELETE', path: '/v1/sites/{id}/alerts/{alert}', summary: 'Remove an alert rule', tags },
    })
    .input(AlertParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteAlert(ctx.em, ctx.actor, input)),

  deliveries: actorProcedure
    .meta({
      auth: 'any',
      scope: ['analytics:read', 'sites:read'],
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/alerts/{alert}/deliveries',
        summary: 'When an alert rule fired, newest first',
        tags,
      },
    })
    .input(AlertDeliveriesInput)
    .output(AlertDeliveries)
    .query(({ ctx, input }) => listDeliveries(ctx.em, ctx.actor, input)),

  /** An owner makes a rule theirs: one whose maker left the workspace is looked at again (dashboard only). */
  takeOver: actorProcedure
    .meta({ auth: 'any', scope: ['analytics:read', 'sites:write'], idempotent: true })
    .input(AlertParams)
    .output(AlertOutput.pick({ alert: true }))
    .mutation(({ ctx, input }) => takeOverAlert(ctx.em, ctx.actor, input)),

  /** The alert e-mail's one-click link: takes the address off that rule; anyone holding the link may. */
  unsubscribe: publicProcedure
    .meta({ auth: 'none' })
    .input(UnsubscribeAlertInput)
    .output(UnsubscribeAlertOutput)
    .mutation(({ ctx, input }) => unsubscribeFromAlert(ctx.deps, ctx.em, input.token)),
});
