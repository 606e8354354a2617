import type { EntityManager } from '@mikro-orm/postgresql';
import { EmailToken } from '@us/db';
import { randomToken, sha256 } from '../../core/security/tokens.ts';

export type EmailPurpose = 'verify' | 'reset';

/** Issues a single-use link token; returns the secret for the link (only its hash is stored). */
export async function issueEmailToken(em: EntityManager, userId: string, purpose: EmailPurpose, ttlSeconds: number) {
  const secret = randomToken(32);
  em.create(EmailToken, {
    user: userId,
    purpose,
    tokenHash: sha256(secret),
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
  });
  await em.flush();
  return secret;
}

/** The live (unused, unexpired) token for `secret`, or null. */
export async function findLiveEmailToken(em: EntityManager, secret: string, purpose: EmailPurpose) {
  const row = await em.findOne(EmailToken, { tokenHash: sha256(secret), purpose });
  if (!row || row.usedAt || row.expiresAt <= new Date()) return null;
  return row;
}

/** Marks the token used; false when another request used it first. */
export async function consumeEmailToken(em: EntityManager, id: string): Promise<boolean> {
  const n = await em.nativeUpdate(EmailToken, { id, usedAt: null }, { usedAt: new Date() });
  return n === 1;
}

/** Ends every unused link of `purpose` the person still has (after one of them did its job). */
export async function endUnusedEmailTokens(em: EntityManager, userId: string, purpose: EmailPurpose) {
  await em.nativeUpdate(EmailToken, { user: userId, purpose, usedAt: null }, { usedAt: new Date() });
}

export function emailLink(appUrl: string, page: string, secret: string) {
  return `${appUrl}/${page}?token=${encodeURIComponent(secret)}`;
}
