// Request and answer schemas of this resource (spec §2 and §4).
import { z } from 'zod';
import { zId, zName, zPlan, zTimestamp } from './common.ts';

const zAllowance = z.number().int().nullable().describe('null = unlimited');

/** The caller's workspace, its plan's allowances and what it uses of them (spec §2 Workspace). */
export const Workspace = z.object({
  id: zId,
  name: z.string(),
  plan: zPlan,
  status: z.string(),
  createdAt: zTimestamp,
  limits: z.object({ sites: zAllowance, members: zAllowance, proxyHostnames: zAllowance }),
  usage: z.object({
    sites: z.number().int().describe('Sites of the workspace (for a site-restricted token: only its own sites)'),
    members: z
      .number()
      .int()
      .nullable()
      .describe('Members plus pending invitations, as counted against limits.members; null for a site-restricted token'),
  }),
});
export type Workspace = z.infer<typeof Workspace>;

export const UpdateWorkspaceInput = z.object({ name: zName }).strict();
export type UpdateWorkspaceInput = z.infer<typeof UpdateWorkspaceInput>;
