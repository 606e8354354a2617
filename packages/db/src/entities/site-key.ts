import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Site } from './site.ts';

/**
 * A site key. Public keys (`pk_…`) are stored in full: they are published in pages. Secrets
 * (`sk_live_…`) are stored only as SHA-256 in `secretHash`, shown once. Rotating or deleting removes the
 * row, so the old key stops at once.
 */
export const SiteKey = defineEntity({
  name: 'SiteKey',
  tableName: 'site_keys',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    site: () => p.manyToOne(Site).deleteRule('cascade').index(),
    kind: p.string().length(8),
    publicValue: p.string().length(40).nullable().unique(),
    secretHash: p.string().length(64).nullable().unique(),
    prefix: p.string().length(24),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type SiteKey = InferEntity<typeof SiteKey>;
