import {
  AddEmailReportInput,
  ConfirmReportInput,
  ConfirmReportOutput,
  EmailReportOutput,
  EmailReportParams,
  EmailReportsInput,
  EmailReportsOutput,
  RemoveEmailReportOutput,
  SendEmailReportOutput,
  UnsubscribeReportInput,
  UnsubscribeReportOutput,
} from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure, publicProcedure } from '../../procedures/procedures.ts';
import { answerConfirmation } from './confirmation.ts';
import { addReport, listReports, removeReport } from './recipients.ts';
import { sendNow } from './send.ts';
import { takeOverReport } from './take-over.ts';
import { unsubscribe } from './unsubscribe.ts';

/**
 * E-mail reports: a site's headline figures for the last full week or month, sent to chosen addresses.
 * On the dashboard's tRPC face only (no `openapi` or `mcp` meta: the spec's REST routes and MCP tools are
 * fixed); the job that sends them is features/reports/reports-job.ts. Whatever sends figures to an
 * address (adding a report, Send now) needs `analytics:read` beside `sites:write`, so a token never gets
 * figures by mail that it could not read directly; the list (addresses, no figures) and removing need
 * only the site scope.
 */
export const reportsRouter = router({
  list: actorProcedure
    .meta({ auth: 'any', scope: 'sites:read' })
    .input(EmailReportsInput)
    .output(EmailReportsOutput)
    .query(({ ctx, input }) => listReports(ctx.em, ctx.actor, input.id)),

  add: actorProcedure
    .meta({ auth: 'any', scope: ['analytics:read', 'sites:write'], idempotent: true, status: 201 })
    .input(AddEmailReportInput)
    .output(EmailReportOutput)
    .mutation(({ ctx, input }) => addReport(ctx.deps, ctx.em, ctx.actor, input)),

  remove: actorProcedure
    .meta({ auth: 'any', scope: 'sites:write', idempotent: true, destructive: true })
    .input(EmailReportParams)
    .output(RemoveEmailReportOutput)
    .mutation(({ ctx, input }) => removeReport(ctx.em, ctx.actor, input)),

  /** The last closed period's report to its address now (once a minute per report). */
  sendNow: actorProcedure
    .meta({ auth: 'any', scope: ['analytics:read', 'sites:write'] })
    .input(EmailReportParams)
    .output(SendEmailReportOutput)
    .mutation(({ ctx, input }) => sendNow(ctx.deps, ctx.em, ctx.actor, input)),

  /** An owner makes a report theirs: one whose maker left the workspace is sent again. */
  takeOver: actorProcedure
    .meta({ auth: 'any', scope: ['analytics:read', 'sites:write'], idempotent: true })
    .input(EmailReportParams)
    .output(EmailReportOutput)
    .mutation(({ ctx, input }) => takeOverReport(ctx.em, ctx.actor, input)),

  /** The confirmation e-mail's link: yes (reports are sent from now on) or no (removed and suppressed). */
  confirm: publicProcedure
    .meta({ auth: 'none' })
    .input(ConfirmReportInput)
    .output(ConfirmReportOutput)
    .mutation(({ ctx, input }) => answerConfirmation(ctx.deps, ctx.em, input)),

  /** The e-mail's one-click link: removes the workspace's reports to that address and suppresses it; anyone holding the link may. */
  unsubscribe: publicProcedure
    .meta({ auth: 'none' })
    .input(UnsubscribeReportInput)
    .output(UnsubscribeReportOutput)
    .mutation(({ ctx, input }) => unsubscribe(ctx.deps, ctx.em, input.token)),
});
