// E-mail reports: a site's headline figures for the last full week or month, sent to chosen addresses
// (dashboard-only procedures `reports.*`; the spec's REST routes and MCP tools are fixed).
import { z } from 'zod';
import { zId, zTimestamp } from './common.ts';

/** Report addresses one site may have (weekly and monthly together). */
export const REPORTS_PER_SITE = 10;
export const REPORT_FREQUENCIES = ['weekly', 'monthly'] as const;
/** confirmed; waiting (its confirmation e-mail is sent or about to be); expired (its link ran out unanswered). */
export const REPORT_CONFIRMATIONS = ['confirmed', 'waiting', 'expired'] as const;

export const EmailReport = z.object({
  id: zId,
  address: z.string(),
  frequency: z.enum(REPORT_FREQUENCIES),
  createdAt: zTimestamp,
  lastSentAt: zTimestamp.nullable(),
  creatorLeft: z.boolean().describe('The member who added it left the workspace: it is not sent until an owner takes it over'),
  confirmation: z
    .enum(REPORT_CONFIRMATIONS)
    .describe('Whether the address confirmed it wants the reports: nothing is sent to it until it has'),
});
export type EmailReport = z.infer<typeof EmailReport>;

export const EmailReportsInput = z.object({ id: zId }).strict();
export const EmailReportsOutput = z.object({ reports: z.array(EmailReport) });

export const AddEmailReportInput = z
  .object({
    id: zId,
    address: z.email({ error: 'Give one e-mail address, such as team@example.com' }).max(254).describe('Where the report goes'),
    frequency: z.enum(REPORT_FREQUENCIES, { error: 'Choose weekly or monthly' }),
  })
  .strict();
export const EmailReportOutput = z.object({ report: EmailReport });

export const EmailReportParams = z.object({ id: zId, reportId: zId }).strict();
export const RemoveEmailReportOutput = z.object({ removed: z.literal(true) });
export const SendEmailReportOutput = z.object({
  sent: z.literal(true),
  from: z.string().describe('First day of the period sent (site time zone)'),
  to: z.string(),
});

export const UnsubscribeReportInput = z
  .object({ token: z.string().min(1).max(200, 'This is not an unsubscribe link: open the one from the e-mail') })
  .strict();
export const UnsubscribeReportOutput = z.object({ address: z.string(), siteName: z.string(), frequency: z.string() });

export const ConfirmReportInput = z
  .object({
    token: z.string().min(1).max(200, 'This is not a confirmation link: open the one from the e-mail'),
    answer: z.enum(['yes', 'no']),
  })
  .strict();
export const ConfirmReportOutput = z.object({
  address: z.string(),
  answer: z.enum(['yes', 'no']),
  sites: z.array(z.string()).describe("Names of the workspace's sites whose reports the address was added to"),
});
