import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Workspace } from './workspace.ts';

/**
 * A tracked site. `settings` holds the four lists of the spec (internalNetworks, botWindows, goals,
 * experiments) and the bot-protection settings, validated by the shared zod schemas before storage.
 * `internalKeyEnc` (encrypted with the app secret) signs the first-party internal mark; rotating it ends every
 * earlier mark. `internalKey` is a key stored in plain text before keys were sealed, null once the service's
 * start has sealed it.
 * `passKeyEnc` (encrypted with the app secret) signs the site's `us_pass` cookies and the bot check's
 * return tickets; the site's edges get it with their protection config. Made on first use.
 */
export const Site = defineEntity({
  name: 'Site',
  tableName: 'sites',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade').index(),
    name: p.string().length(80),
    timezone: p.string().length(64),
    settings: p.json<Record<string, unknown>>(),
    internalKey: p.string().length(64).nullable(),
    internalKeyEnc: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastSeenAt: p.datetime().nullable(),
    /** Days of analytics kept (raw rows and rollups); null = kept while the account exists. */
    retentionDays: p.integer().nullable(),
    passKeyEnc: p.text().nullable(),
  },
});
export type Site = InferEntity<typeof Site>;
