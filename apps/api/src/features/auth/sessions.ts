import type { EntityManager } from '@mikro-orm/postgresql';
import { Session } from '@us/db';
import { LIMITS, type Session as SessionOut } from '@us/shared';
import { isUuid } from '../../actor/access.ts';
import type { RequestInfo } from '../../actor/request-info.ts';
import { notFound } from '../../core/errors.ts';
import { coarseNetwork, deviceSummary } from '../../core/security/client-info.ts';
import { randomToken, sha256 } from '../../core/security/tokens.ts';
import type { ResponseOut } from '../../procedures/context.ts';

export const SESSION_COOKIE = 'us_session';

function cookie(value: string, maxAgeSeconds: number, req: RequestInfo): string {
  const parts = [`${SESSION_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (!req.insecureLocalhost) parts.push('Secure');
  return parts.join('; ');
}

/**
 * Starts a session for the person and sets the cookie on the answer, only while `passwordHash` (the one the
 * sign-in checked) is still the person's: a reset or change that went through since ends the sign-in. The row is
 * read `for share`, so a reset committing meanwhile either waits for this session (and then ends it) or is seen.
 * Answers false when the password changed.
 */
export async function startSession(
  em: EntityManager,
  user: { id: string; passwordHash: string },
  req: RequestInfo,
  out: ResponseOut,
): Promise<boolean> {
  const value = randomToken(32);
  const started = await em.transactional(async (tx) => {
    const current = await tx.execute<unknown[]>('select 1 from users where id = ? and password_hash = ? for share', [
      user.id,
      user.passwordHash,
    ]);
    if (current.length === 0) return false;
    tx.create(Session, {
      user: user.id,
      tokenHash: sha256(value),
      expiresAt: new Date(Date.now() + LIMITS.sessionTtlSeconds * 1000),
      network: coarseNetwork(req.ip),
      device: deviceSummary(req.userAgent),
    });
    return true;
  });
  if (started) out.cookies.push(cookie(value, LIMITS.sessionTtlSeconds, req));
  return started;
}

export function clearSessionCookie(req: RequestInfo, out: ResponseOut) {
  out.cookies.push(cookie('', 0, req));
}

export async function listSessions(em: EntityManager, userId: string, currentId: string): Promise<SessionOut[]> {
  const rows = await em.find(Session, { user: userId, expiresAt: { $gt: new Date() } }, { orderBy: { createdAt: 'desc' } });
  return rows.map((s) => ({
    id: s.id,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt?.toISOString() ?? null,
    expiresAt: s.expiresAt.toISOString(),
    ip: s.network ?? null,
    userAgent: s.device ?? null,
    current: s.id === currentId,
  }));
}

/** Ends one of the person's sessions; someone else's (or an unknown id) is 404. */
export async function endSession(em: EntityManager, userId: string, id: string): Promise<void> {
  // A uuid's own form: 36 dashes passed a looser check and reached PostgreSQL as a uuid (500).
  const n = isUuid(id) ? await em.nativeDelete(Session, { id, user: userId }) : 0;
  if (n === 0) throw notFound('session');
}

/** Ends the session whose cookie value this is, if any (sign-out). */
export async function endSessionOfCookie(em: EntityManager, cookieValue: string): Promise<void> {
  await em.nativeDelete(Session, { tokenHash: sha256(cookieValue) });
}

export async function endOtherSessions(em: EntityManager, userId: string, keepId: string) {
  await em.nativeDelete(Session, { user: userId, id: { $ne: keepId } });
}

export async function endAllSessions(em: EntityManager, userId: string) {
  await em.nativeDelete(Session, { user: userId });
}
