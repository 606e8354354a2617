import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Workspace } from './workspace.ts';

/** An invitation to join a workspace; pending while neither accepted, withdrawn nor expired. */
export const Invite = defineEntity({
  name: 'Invite',
  tableName: 'invites',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade').index(),
    email: p.string().length(254),
    role: p.string().length(16),
    tokenHash: p.string().length(64).unique(),
    invitedBy: p.uuid(),
    /** The API token it was made with (null: in a session): revoking the token withdraws it while pending. */
    createdByToken: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    withdrawnAt: p.datetime().nullable(),
  },
});
export type Invite = InferEntity<typeof Invite>;
