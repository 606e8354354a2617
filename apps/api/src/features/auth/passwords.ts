import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '@us/db';
import { LIMITS } from '@us/shared';
import type { RequestInfo } from '../../actor/request-info.ts';
import type { Deps } from '../../core/deps.ts';
import { badRequest } from '../../core/errors.ts';
import { mayMail } from '../../core/mail/budget.ts';
import { resetMail } from '../../core/mail/templates.ts';
import { hashPassword } from '../../core/security/passwords.ts';
import type { ResponseOut } from '../../procedures/context.ts';
import { revokeTokensMadeBy } from '../tokens/index.ts';
import { normaliseEmail, refuseBreached, sendAfterAnswer } from './accounts.ts';
import { consumeEmailToken, emailLink, endUnusedEmailTokens, findLiveEmailToken, issueEmailToken } from './email-tokens.ts';
import { checkSessionPassword, type SessionPerson } from './session-password.ts';
import { endAllSessions, endOtherSessions } from './sessions.ts';
import { clearAccountThrottles } from './throttle.ts';

export const RESET_REQUEST_MESSAGE = 'If that address has an account, a link to reset the password is on its way.';

export async function requestReset(deps: Deps, _em: EntityManager, input: { email: string }) {
  const email = normaliseEmail(input.email);
  // All of it after the answer (looking the address up, its mail budget, the link): only an address with an
  // account took that time, so timing the answer told who has one.
  sendAfterAnswer(deps, async () => {
    const em = deps.orm.em.fork();
    const user = await em.findOne(User, { email });
    // Within the address's mail budget, silently: the answer is the same for every address.
    if (!user || !(await mayMail(deps.hot, email))) return;
    const secret = await issueEmailToken(em, user.id, 'reset', LIMITS.resetTokenTtlSeconds);
    await deps.mailer.send(resetMail(email, emailLink(deps.urls.app, 'reset-password', secret)));
  });
  return { message: RESET_REQUEST_MESSAGE };
}

/**
 * Sets a new password from a reset link: ends the person's other reset links, signs out every session,
 * revokes every API token the person made, clears sign-in throttling. Following the link also proves
 * the address.
 */
export async function resetPassword(deps: Deps, em: EntityManager, input: { token: string; password: string }) {
  const row = await findLiveEmailToken(em, input.token, 'reset');
  if (!row) throw badRequest('token', 'This reset link is invalid, used or expired: ask for a new one');
  await refuseBreached(deps, input.password, 'password');
  const passwordHash = await hashPassword(input.password);
  const userId = row.user.id;
  const email = await em.transactional(async (tx) => {
    if (!(await consumeEmailToken(tx, row.id))) {
      throw badRequest('token', 'This reset link is invalid, used or expired: ask for a new one');
    }
    // Any other reset link still in a mailbox would reset the password again: they end with this one.
    await endUnusedEmailTokens(tx, userId, 'reset');
    const user = await tx.findOneOrFail(User, { id: userId });
    await tx.nativeUpdate(User, { id: userId }, { passwordHash, emailVerifiedAt: user.emailVerifiedAt ?? new Date() });
    await endAllSessions(tx, userId);
    await revokeTokensMadeBy(tx, userId);
    return user.email;
  });
  await clearAccountThrottles(deps.hot, userId, normaliseEmail(email));
  return { reset: true };
}

/**
 * Changes the password of a signed-in person: keeps this session, ends the others. Wrong current
 * passwords are throttled per session (`checkSessionPassword`).
 */
export async function changePassword(
  deps: Deps,
  em: EntityManager,
  who: SessionPerson,
  input: { currentPassword: string; newPassword: string },
  req: RequestInfo,
  out: ResponseOut,
) {
  const user = await checkSessionPassword(deps, em, who, input.currentPassword, 'currentPassword', req, out);
  await refuseBreached(deps, input.newPassword, 'newPassword');
  const passwordHash = await hashPassword(input.newPassword);
  await em.nativeUpdate(User, { id: user.id }, { passwordHash });
  await endOtherSessions(em, user.id, who.sessionId);
  return { changed: true };
}
