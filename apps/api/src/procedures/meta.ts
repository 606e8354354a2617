import type { Scope } from '@us/shared';
import type { OpenApiMeta } from 'trpc-to-openapi';

/**
 * Everything the three faces need to know about one operation, declared once on the procedure.
 * - `openapi`: REST method and path (the OpenAPI document and REST routes are generated from it).
 * - `mcp.tool`: the MCP tool name, when the spec lists one; `mcp.description`: what a model needs to
 *   choose and call the tool (when to use it, what the arguments mean). Without it, the OpenAPI summary.
 * - `auth`: 'none' (no credentials), 'person' (the us_session cookie only; tokens get 403),
 *   'any' (person or token), 'optional' (used when present, e.g. logout).
 * - `scope`: the scope a token or role must hold, or several that it must all hold (a shared link or an
 *   e-mail report hands out figures, so making one needs `analytics:read` beside `sites:write`).
 * - `noRestricted`: site-restricted tokens are refused.
 * - `idempotent`: honours Idempotency-Key (REST) / idempotencyKey (MCP).
 * - `status`: success status when not 200.
 * - `readOnly`: a POST that changes nothing (stats queries), so it takes no idempotency key.
 * - `destructive`: a change that ends something beyond the request's own record (a rotation ends the
 *   old key at once); DELETE routes are destructive without saying so.
 * - `external`: the operation reaches outside this service (DNS lookups, the edge platform's API).
 * - `textBlocks`: top-level input fields whose strings may hold line breaks and tabs (a pasted key
 *   file); every other control character is still refused there.
 * - `shareable`: a shared link's viewer may call it (the dashboard's figures of its one site); nothing
 *   else lets such a viewer in.
 * - `answers`: error statuses beyond those its kind implies (a public sign-in answers 401), so the
 *   OpenAPI document lists them.
 * - `builder`: written by the builder the procedure was made from (`procedures.ts`), never by hand.
 */
export type Meta = OpenApiMeta<{
  mcp?: { tool: string; description?: string };
  auth: 'none' | 'person' | 'any' | 'optional';
  scope?: Scope | readonly Scope[];
  noRestricted?: boolean;
  idempotent?: boolean;
  status?: 200 | 201 | 202 | 204;
  readOnly?: boolean;
  destructive?: boolean;
  external?: boolean;
  textBlocks?: string[];
  shareable?: boolean;
  answers?: readonly 401[];
  builder?: 'public' | 'actor' | 'person';
}>;

/** Every scope an operation's meta requires, in the order declared (none when it declares none). */
export function scopesOf(meta: Pick<Meta, 'scope'>): readonly Scope[] {
  if (meta.scope === undefined) return [];
  return typeof meta.scope === 'string' ? [meta.scope] : meta.scope;
}
