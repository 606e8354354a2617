import type { EntityManager } from '@mikro-orm/postgresql';
import { Site } from '@us/db';
import { type CreateTokenInput, type CreateTokenOutput, type Scope, TOKEN_LIMITS } from '@us/shared';
import { isUuid, responsibleUserId, workspaceIdOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { checkStillEntitled } from '../../actor/still-entitled.ts';
import { AppError, badRequest, forbidden, scopeMissing, tooMany } from '../../core/errors.ts';
import { firstMissingScope, toEntry } from './entry.ts';
import { issueToken } from './issue.ts';

/**
 * Makes a token in the caller's workspace and returns it with its secret, shown this once.
 * - The caller must hold every scope it gives (403 naming the first it lacks).
 * - `siteIds` must be sites of this workspace (400 `siteIds[i]`); a site-restricted caller may only
 *   give sites within its own (403) and, omitting them, passes its restriction on.
 * - `expiresAt` must be in the future. A token made by an expiring token expires no later than it:
 *   omitted, it inherits that expiry; later, it is refused (400 `expiresAt`).
 * - A workspace keeps at most TOKEN_LIMITS.livePerWorkspace live tokens (409 past it), and makes at most
 *   TOKEN_LIMITS.madePerWorkspacePerDay in 24 hours (429 past it: made to expire at once, they took no place).
 * - Made by a person: `createdBy` is the person. Made by a token: `createdBy` is that token's maker
 *   and `parentToken` the calling token, so revoking the caller revokes what it made.
 */
export async function createToken(em: EntityManager, actor: Actor, input: CreateTokenInput): Promise<CreateTokenOutput> {
  const workspaceId = workspaceIdOf(actor);
  const expiresAt = resolveExpiry(actor, input.expiresAt ?? null);

  const missing = firstMissingScope(actor, input.scopes);
  if (missing) {
    throw scopeMissing(missing, 'you cannot give a token a scope you do not hold; leave it out or ask a workspace owner for it');
  }

  const siteIds = await resolveSites(em, actor, workspaceId, input.siteIds ?? null);
  return em.transactional(async (tx) => {
    // Counted under the workspace's row lock: tokens made at once each count the ones before them.
    await tx.execute('select 1 from workspaces where id = ? for update', [workspaceId]);
    await checkStillEntitled(tx, actor, workspaceId, input.scopes as Scope[]);
    const [{ n, today } = { n: 0, today: 0 }] = await tx.execute<{ n: number; today: number }[]>(
      `select count(*) filter (where revoked_at is null and (expires_at is null or expires_at > now()))::int as n,
              count(*) filter (where created_at > now() - interval '1 day')::int as today
         from api_tokens where workspace_id = ?`,
      [workspaceId],
    );
    if (today >= TOKEN_LIMITS.madePerWorkspacePerDay) {
      throw tooMany(
        3600,
        `This workspace made ${TOKEN_LIMITS.madePerWorkspacePerDay} API tokens in the last 24 hours, the most it may: reuse a token, or try again later`,
      );
    }
    if (n >= TOKEN_LIMITS.livePerWorkspace) {
      throw new AppError(
        409,
        `This workspace has ${TOKEN_LIMITS.livePerWorkspace} live API tokens, the most it keeps: revoke the ones no longer used (DELETE /v1/tokens/{id}), then make this one`,
      );
    }
    const { secret, row } = await issueToken(tx, {
      workspaceId,
      createdBy: responsibleUserId(actor),
      parentToken: actor.type === 'token' ? actor.token.id : null,
      name: input.name,
      scopes: input.scopes as Scope[],
      siteIds,
      expiresAt,
    });
    return { ...toEntry(row), token: secret, shownOnce: true };
  });
}

function resolveExpiry(actor: Actor, given: string | null): Date | null {
  const parentExpiry = actor.type === 'token' ? (actor.token.expiresAt ?? null) : null;
  if (given === null) return parentExpiry;
  const at = new Date(given);
  if (at.getTime() <= Date.now()) {
    throw badRequest('expiresAt', 'Choose an expiresAt in the future, or omit it for a token that does not expire');
  }
  if (parentExpiry && at > parentExpiry) {
    throw badRequest(
      'expiresAt',
      `Choose an expiresAt no later than ${parentExpiry.toISOString()}, when the token making it expires, or omit it to use that`,
    );
  }
  return at;
}

/** The stored site list: the workspace's own ids (as stored), in the order given; null = every site. */
async function resolveSites(
  em: EntityManager,
  actor: Actor,
  workspaceId: string,
  given: string[] | null,
): Promise<string[] | null> {
  if (given === null) return actor.siteIds === null ? null : [...actor.siteIds];

  if (actor.siteIds !== null) {
    // Checked before existence, so a restricted caller learns nothing about sites outside its own.
    const own = new Set(actor.siteIds.map((s) => s.toLowerCase()));
    const outside = given.find((s) => !own.has(s.toLowerCase()));
    if (outside !== undefined) {
      throw forbidden(
        `Site ${outside} is outside this token's sites: a site-restricted token can only make tokens for its own sites`,
      );
    }
  }

  const notSite = (i: number) =>
    badRequest(`siteIds[${i}]`, `Fix siteIds[${i}]: it is not a site of this workspace; take the id from GET /v1/sites`);
  const badIndex = given.findIndex((s) => !isUuid(s));
  if (badIndex >= 0) throw notSite(badIndex);
  const found = await em.find(
    Site,
    { id: { $in: given.map((s) => s.toLowerCase()) }, workspace: workspaceId },
    { fields: ['id'] },
  );
  const known = new Map(found.map((s) => [s.id.toLowerCase(), s.id]));
  return given.map((s, i) => {
    const id = known.get(s.toLowerCase());
    if (id === undefined) throw notSite(i);
    return id;
  });
}
