// E-mail reports: a site's headline figures for the last full week or month, sent to chosen addresses
// (dashboard-only procedures `reports.*`; the spec's REST routes and MCP tools are fixed).
import { z } from 'zod';
import { zId, zTimestamp } from './common.ts';

/** Report addresses one site may have (weekly and monthly together). */
export const REPORTS_PER_SITE = 10;
export const REPORT_FREQUENCIES = ['weekly', 'monthly'] as const;

export const EmailReport = z.object({
  id: zId,
  address: z.string(),
  frequency: z.enum(REPORT_FREQUENCIES),
  createdAt: zTimestamp,
  lastSentAt: zTimestamp.nullable(),
  creatorLeft: z.boolean().describe('The member who added it left the workspace: it is not sent until an owner takes it over'),
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
