import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { User } from './user.ts';

/** A signed-in browser. Only the SHA-256 of the cookie value is stored. */
export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastSeenAt: p.datetime().nullable(),
    expiresAt: p.datetime(),
    /** Coarse network (IPv4 /24, IPv6 /48), never the full address. */
    network: p.string().length(64).nullable(),
    /** "Chrome 140 on Linux": a summary, never the full user-agent string. */
    device: p.string().length(120).nullable(),
    /** Wrong current passwords given to password change from this session. */
    wrongPasswordCount: p.integer().default(0),
  },
});
export type Session = InferEntity<typeof Session>;
