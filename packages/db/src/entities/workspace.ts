import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

export const Workspace = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    name: p.string().length(80),
    plan: p.string().length(16).default('Free'),
    status: p.string().length(16).default('active'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Workspace = InferEntity<typeof Workspace>;
