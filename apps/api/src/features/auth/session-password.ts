import type { EntityManager } from '@mikro-orm/postgresql';
import { Session, User } from '@us/db';
import { LIMITS } from '@us/shared';
import type { RequestInfo } from '../../actor/request-info.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { verifyPassword } from '../../core/security/passwords.ts';
import type { ResponseOut } from '../../procedures/context.ts';
import { clearSessionCookie } from './sessions.ts';
import { slowdownMs } from './throttle.ts';

export interface SessionPerson {
  userId: string;
  sessionId: string;
}

async function signOut(em: EntityManager, sessionId: string, req: RequestInfo, out: ResponseOut, title: string) {
  await em.nativeDelete(Session, { id: sessionId });
  clearSessionCookie(req, out);
  return new AppError(401, title);
}

/**
 * Checks the current password typed in a signed-in session (password change, two-factor enrol and
 * disable share one count per session). The session's count goes up in SQL before the check, so guesses
 * sent at once each see the ones before them: after three wrong ones the answers slow down, the fifth
 * signs the session out, and any beyond it is refused unchecked. A right one sets the count back to 0.
 */
export async function checkSessionPassword(
  deps: Deps,
  em: EntityManager,
  who: SessionPerson,
  password: string,
  field: string,
  req: RequestInfo,
  out: ResponseOut,
): Promise<User> {
  const rows = await em.execute<{ wrong_password_count: number }[]>(
    'update sessions set wrong_password_count = wrong_password_count + 1 where id = ? returning wrong_password_count',
    [who.sessionId],
  );
  const attempt = rows[0]?.wrong_password_count;
  if (attempt === undefined) throw new AppError(401, 'This session has been signed out: sign in again');
  const last = LIMITS.changeWrongSignsOut;
  if (attempt > last) {
    throw await signOut(em, who.sessionId, req, out, 'Too many wrong passwords: this session was signed out; sign in again');
  }
  const delay = slowdownMs(attempt - 1);
  if (delay > 0) await deps.sleep(delay);

  const user = await em.findOneOrFail(User, { id: who.userId });
  if (await verifyPassword(user.passwordHash, password)) {
    await em.nativeUpdate(Session, { id: who.sessionId }, { wrongPasswordCount: 0 });
    return user;
  }
  if (attempt === last) {
    throw await signOut(
      em,
      who.sessionId,
      req,
      out,
      'Wrong password for the fifth time: this session was signed out; sign in again, or reset your password',
    );
  }
  throw badRequest(
    field,
    field === 'currentPassword' ? 'The current password is wrong: type it again' : 'Wrong password: type your current password',
  );
}
