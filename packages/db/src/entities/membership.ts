import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { User } from './user.ts';
import { Workspace } from './workspace.ts';

/** A person's role in a workspace. */
export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    workspace: () => p.manyToOne(Workspace).primary().deleteRule('cascade'),
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    role: p.string().length(16),
    joinedAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Membership = InferEntity<typeof Membership>;
