import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { User } from './user.ts';

/** Single-use link tokens sent by e-mail (verification, password reset). Stored as SHA-256. */
export const EmailToken = defineEntity({
  name: 'EmailToken',
  tableName: 'email_tokens',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    purpose: p.string().length(16),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
export type EmailToken = InferEntity<typeof EmailToken>;
