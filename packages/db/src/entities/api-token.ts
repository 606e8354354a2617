import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { User } from './user.ts';
import { Workspace } from './workspace.ts';

/**
 * An API token. Only the SHA-256 of the secret is stored; `prefix` is what lists show.
 * `parentToken` is the token that made it (null when a person made it in the dashboard): revoking a
 * token revokes its whole subtree.
 */
export const ApiToken = defineEntity({
  name: 'ApiToken',
  tableName: 'api_tokens',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade').index(),
    name: p.string().length(80),
    prefix: p.string().length(32),
    tokenHash: p.string().length(64).unique(),
    scopes: p.array(),
    siteIds: p.json<string[]>().nullable(),
    createdBy: () => p.manyToOne(User).deleteRule('cascade').index(),
    parentToken: p.uuid().nullable().index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiToken = InferEntity<typeof ApiToken>;
