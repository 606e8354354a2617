import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Site } from './site.ts';

/**
 * An e-mail report: a site's headline figures for the last full week or month, sent to one address
 * (lower-cased). `lastPeriodStart` is the first day (site time zone) of the last period sent, or of the
 * last period closed when the report was set up, so each period goes out once. At most 10 per site, one
 * per address and frequency.
 */
export const EmailReport = defineEntity({
  name: 'EmailReport',
  tableName: 'email_reports',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    site: () => p.manyToOne(Site).deleteRule('cascade'),
    workspaceId: p.uuid(),
    address: p.text(),
    frequency: p.text(),
    createdBy: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastPeriodStart: p.date(),
    lastSentAt: p.datetime().nullable(),
  },
});
export type EmailReport = InferEntity<typeof EmailReport>;
