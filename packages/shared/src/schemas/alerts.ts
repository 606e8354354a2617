// Request and answer schemas of alerts (issue 40 item 7: not in the spec; the design is ours,
// docs/product/alerts.md): a site asks to be told by e-mail, and optionally a signed webhook, when its
// traffic spikes or drops, when a goal's conversions fall, or when its first pageview arrives.
import { z } from 'zod';
import { zId, zTimestamp } from './common.ts';

export const ALERT_KINDS = ['traffic_spike', 'traffic_drop', 'goal_drop', 'first_pageview'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const ALERT_WINDOWS = ['hour', 'day'] as const;
export type AlertWindow = (typeof ALERT_WINDOWS)[number];

export const ALERT_LIMITS = {
  perSite: 20,
  recipients: 10,
  /** A spike of +10,000% is a hundredfold: past that the threshold says nothing more. */
  maxSpikePercent: 10_000,
  /** A drop or fall is at most 100% (to zero). */
  maxDropPercent: 100,
  /** Visitors (or conversions) the baseline must average before a rule compares against it. */
  minBaseline: 20,
  /** Weeks of the same hour or weekday averaged into the baseline. */
  baselineWeeks: 4,
  webhookUrl: 2048,
  defaultPage: 50,
  maxPage: 200,
} as const;

const zAlertKind = z
  .enum(ALERT_KINDS, { error: 'Choose traffic_spike, traffic_drop, goal_drop or first_pageview' })
  .describe('What the rule watches');
const zWindow = z
  .enum(ALERT_WINDOWS, { error: 'Choose hour or day' })
  .describe('The period compared: the last complete hour, or the last complete day of the site’s time zone');
const zThreshold = z
  .number({ error: 'Give thresholdPercent as a whole number of percent, such as 50' })
  .int('Give thresholdPercent as a whole number of percent, such as 50')
  .min(1, 'Give thresholdPercent of 1 or more')
  .max(ALERT_LIMITS.maxSpikePercent, `Give thresholdPercent of at most ${ALERT_LIMITS.maxSpikePercent}`)
  .describe(
    'How far from the usual figure the period must be: 50 means 50% above (spike) or below (drop, goal) the average of the same hour or weekday over the previous 4 weeks',
  );
const zGoal = z.string().trim().min(1, 'Give the goal’s name').max(120).describe('The goal watched (its name), for goal_drop');
const zRecipients = z
  .array(z.email({ error: 'Give e-mail addresses, such as team@example.com' }).max(254), {
    error: 'Give recipients as a list of e-mail addresses',
  })
  .max(ALERT_LIMITS.recipients, `Give at most ${ALERT_LIMITS.recipients} recipients`)
  .describe('Addresses told by e-mail; a new address is asked to confirm first, like report addresses');
const zWebhookUrl = z
  .string()
  .max(ALERT_LIMITS.webhookUrl, `Give a webhook URL of at most ${ALERT_LIMITS.webhookUrl} characters`)
  .nullable()
  .describe('An https URL that gets a signed POST for each alert (header X-Unseen-Signature); null for none');

export const AlertRecipient = z.object({
  address: z.string(),
  confirmation: z
    .enum(['confirmed', 'waiting', 'expired'])
    .describe('Whether the address confirmed it wants this workspace’s mail: nothing is sent to it until it has'),
});

export const Alert = z.object({
  id: z.string(),
  kind: z.enum(ALERT_KINDS),
  thresholdPercent: z.number().nullable(),
  goal: z.string().nullable(),
  window: z.enum(ALERT_WINDOWS),
  recipients: z.array(AlertRecipient),
  webhookUrl: z.string().nullable(),
  enabled: z.boolean(),
  creatorLeft: z
    .boolean()
    .describe('The member who made it left the workspace: it is not looked at until an owner takes it over'),
  createdAt: zTimestamp,
  lastFiredAt: zTimestamp.nullable(),
});
export type Alert = z.infer<typeof Alert>;

export const AlertListInput = z.object({ id: zId }).strict();
export const AlertList = z.object({ alerts: z.array(Alert).describe('Oldest first') });

/** The fields a rule is made of; which are needed depends on `kind` (checked in the service, naming the field). */
export const CreateAlertInput = z
  .object({
    id: zId,
    kind: zAlertKind,
    thresholdPercent: zThreshold.optional(),
    goal: zGoal.optional(),
    window: zWindow.optional().describe('hour or day (default day)'),
    recipients: zRecipients.optional(),
    webhookUrl: zWebhookUrl.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type CreateAlertInput = z.infer<typeof CreateAlertInput>;

export const CreateAlertOutput = z.object({
  alert: Alert,
  webhookSecret: z
    .string()
    .nullable()
    .describe('The secret that signs this rule’s webhook calls; shown once, here (null without a webhook)'),
});

const zAlertId = z.string().min(1).max(64).describe('The alert id (from GET /v1/sites/{id}/alerts)');
export const AlertParams = z.object({ id: zId, alert: zAlertId }).strict();
export type AlertParams = z.infer<typeof AlertParams>;

export const UpdateAlertInput = z
  .object({
    id: zId,
    alert: zAlertId,
    thresholdPercent: zThreshold.optional(),
    goal: zGoal.optional(),
    window: zWindow.optional(),
    recipients: zRecipients.optional(),
    webhookUrl: zWebhookUrl.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type UpdateAlertInput = z.infer<typeof UpdateAlertInput>;

export const AlertOutput = z.object({
  alert: Alert,
  webhookSecret: z.string().nullable().describe('A new secret when this change added a webhook URL (shown once); else null'),
});

export const AlertDeliveriesInput = z
  .object({
    id: zId,
    alert: zAlertId,
    limit: z
      .number()
      .int()
      .min(1, 'Give limit of 1 or more')
      .max(ALERT_LIMITS.maxPage, `Give limit of at most ${ALERT_LIMITS.maxPage}`)
      .optional()
      .describe(`Most deliveries returned (default ${ALERT_LIMITS.defaultPage})`),
    cursor: z.string().max(200).optional().describe('`next` of the previous page'),
  })
  .strict();
export type AlertDeliveriesInput = z.infer<typeof AlertDeliveriesInput>;

export const AlertDelivery = z.object({
  id: z.string(),
  period: z
    .string()
    .describe('The hour (YYYY-MM-DDTHH:00) or day (YYYY-MM-DD) of the site’s time zone; `first` for first_pageview'),
  firedAt: zTimestamp,
  current: z.number().describe('Visitors (conversions for goal_drop; pageviews for first_pageview) in the period'),
  baseline: z.number().nullable().describe('The average of the same hour or weekday over the previous 4 weeks'),
  changePercent: z.number().nullable(),
  mails: z.number().describe('E-mails sent'),
  mailsHeld: z
    .number()
    .describe(
      'E-mails not sent: over the workspace’s daily alert budget or the address’s hourly one, or refused by the mail server after six hours of tries',
    ),
  webhook: z
    .enum(['none', 'pending', 'sent', 'failed'])
    .describe('pending: being sent (a run that stopped sends it at the next run, every 5 minutes)'),
  webhookStatus: z.number().nullable().describe('The HTTP status of the last try, null when none answered'),
});
export type AlertDelivery = z.infer<typeof AlertDelivery>;

export const AlertDeliveries = z.object({
  deliveries: z.array(AlertDelivery).describe('Newest first'),
  next: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last'),
});

export const UnsubscribeAlertInput = z
  .object({ token: z.string().min(1).max(200, 'This is not an unsubscribe link: open the one from the e-mail') })
  .strict();
export const UnsubscribeAlertOutput = z.object({ address: z.string(), siteName: z.string() });
