// Shared links: a read-only view of one site's dashboard for whoever holds the link (dashboard-only
// procedures `shares.*`; the spec's REST routes and MCP tools are fixed).
import { z } from 'zod';
import { zExistingPassword, zId, zName, zNewPassword, zTimestamp } from './common.ts';

/** Shared links one site may have at once. */
export const SHARE_LINKS_PER_SITE = 20;
/** How long a view opened with a link lasts before the link (and its password) is asked for again. */
export const SHARE_VIEW_HOURS = 12;
/** A link's secret as it appears in its address: `shr_` and 32 URL-safe characters. */
export const SHARE_TOKEN_PATTERN = /^shr_[A-Za-z0-9_-]{32}$/;

export const ShareLink = z.object({
  id: zId,
  label: z.string(),
  url: z.string().describe('The address to hand out: opens the dashboard read-only'),
  hasPassword: z.boolean(),
  allowEmbedding: z
    .boolean()
    .describe('The view may be shown in a frame (an <iframe>) on pages of the site’s own hostnames; otherwise nowhere'),
  createdAt: zTimestamp,
  lastOpenedAt: zTimestamp.nullable(),
  creatorLeft: z.boolean().describe('The member who made it left the workspace: it does not open until an owner takes it over'),
});
export type ShareLink = z.infer<typeof ShareLink>;

export const ShareLinksInput = z.object({ id: zId }).strict();
export const ShareLinksOutput = z.object({ links: z.array(ShareLink) });
export type ShareLinksOutput = z.infer<typeof ShareLinksOutput>;

export const CreateShareLinkInput = z
  .object({
    id: zId,
    label: zName.describe('What the link is for, e.g. "Board" or "Public"'),
    password: zNewPassword.optional().describe('Asked for before the dashboard opens; leave out for an open link'),
    allowEmbedding: z
      .boolean()
      .optional()
      .describe('Let pages on the site’s own hostnames show the view in a frame (default false: no site may frame it)'),
  })
  .strict();
export const ShareLinkOutput = z.object({ link: ShareLink });
export type ShareLinkOutput = z.infer<typeof ShareLinkOutput>;

export const RevokeShareLinkInput = z.object({ id: zId, linkId: zId }).strict();
export const RevokeShareLinkOutput = z.object({ revoked: z.literal(true) });

export const TakeOverShareLinkInput = z.object({ id: zId, linkId: zId }).strict();

const zShareToken = z
  .string()
  .regex(SHARE_TOKEN_PATTERN, 'This is not a shared link: copy the whole address from whoever shared it');

export const OpenShareInput = z.object({ token: zShareToken, password: zExistingPassword.optional() }).strict();
export const OpenShareOutput = z.object({
  view: z.string().describe('Sent as the X-Share-View header of the view’s own calls (stats, live figures)'),
  expiresAt: zTimestamp,
  site: z.object({ id: zId, name: z.string(), timezone: z.string() }),
});
export type OpenShareOutput = z.infer<typeof OpenShareOutput>;
