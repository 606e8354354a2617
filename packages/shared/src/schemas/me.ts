import { z } from 'zod';
import { SCOPES } from '../scopes.ts';
import { Membership } from './auth.ts';
import { zId, zRole, zTimestamp } from './common.ts';

export const zScope = z.enum(SCOPES);

export const User = z.object({
  id: zId,
  email: z.string(),
  emailVerified: z.boolean(),
  twoFactor: z.boolean(),
  createdAt: zTimestamp,
});

export const MeOutput = z.object({
  actor: z.object({ type: z.enum(['user', 'token']), id: zId }),
  workspaceId: zId.nullable(),
  role: zRole.nullable(),
  scopes: z.array(zScope),
  siteIds: z.array(zId).nullable(),
  user: User.optional(),
  memberships: z.array(Membership).optional(),
  token: z.object({ id: zId, name: z.string(), expiresAt: zTimestamp.nullable() }).optional(),
});
export type MeOutput = z.infer<typeof MeOutput>;
