import type { EntityManager } from '@mikro-orm/postgresql';
import { LIMITS } from '@us/shared';
import { User } from '@us/db';
import type { RequestInfo, ResponseOut } from '../../context.ts';
import type { Deps } from '../../deps.ts';
import { AppError, tooMany } from '../../errors.ts';
import { dummyVerify, verifyPassword } from '../../security/passwords.ts';
import { randomToken, sha256 } from '../../security/tokens.ts';
import { listMemberships } from '../memberships.ts';
import { normaliseEmail } from './accounts.ts';
import { startSession } from './sessions.ts';
import { counter, slowdownMs, throttleKeys } from './throttle.ts';
import { checkTotp } from './two-factor.ts';

const WRONG_SIGN_IN = 'Wrong e-mail or password: try again, or reset your password';

async function signedIn(deps: Deps, em: EntityManager, user: User, req: RequestInfo, out: ResponseOut) {
  await startSession(em, user.id, req, out);
  await deps.hot.del(throttleKeys.loginByAccount(user.id));
  return { user: { id: user.id, email: user.email }, memberships: await listMemberships(em, user.id) };
}

/**
 * Password sign-in. Failures from one address (and against one account) slow the next answers down
 * instead of locking anyone out; the answer to a wrong password stays 401.
 */
export async function login(
  deps: Deps,
  em: EntityManager,
  input: { email: string; password: string },
  req: RequestInfo,
  out: ResponseOut,
) {
  const email = normaliseEmail(input.email);
  const user = await em.findOne(User, { email });
  const ipKey = req.ip ? throttleKeys.loginByAddress(req.ip) : null;
  const failures = Math.max(
    ipKey ? await counter(deps.hot, ipKey) : 0,
    user ? await counter(deps.hot, throttleKeys.loginByAccount(user.id)) : 0,
  );
  const delay = slowdownMs(failures);
  if (delay > 0) await deps.sleep(delay);

  const ok = user ? await verifyPassword(user.passwordHash, input.password) : await dummyVerify(input.password);
  if (!user || !ok) {
    if (ipKey) await deps.hot.incr(ipKey, 3600);
    if (user) await deps.hot.incr(throttleKeys.loginByAccount(user.id), 3600);
    throw new AppError(401, WRONG_SIGN_IN);
  }
  if (!user.emailVerifiedAt) {
    throw new AppError(403, 'Confirm your e-mail address first: open the link we sent, or ask for a new one');
  }
  if (user.twoFactorEnabledAt) {
    const challenge = randomToken(32);
    await deps.hot.set(throttleKeys.twoFactorChallenge(sha256(challenge)), user.id, LIMITS.twoFactorWindowSeconds);
    return { twoFactorRequired: true as const, challenge };
  }
  return signedIn(deps, em, user, req, out);
}

/** Second step: five guesses per account in five minutes. */
export async function loginTwoFactor(
  deps: Deps,
  em: EntityManager,
  input: { challenge: string; code: string },
  req: RequestInfo,
  out: ResponseOut,
) {
  const challengeKey = throttleKeys.twoFactorChallenge(sha256(input.challenge));
  const userId = await deps.hot.get(challengeKey);
  if (!userId) throw new AppError(401, 'This sign-in step has expired: sign in again with your password');
  const wrongKey = throttleKeys.twoFactorWrong(userId);
  if ((await counter(deps.hot, wrongKey)) >= LIMITS.twoFactorGuesses) {
    const wait = await deps.hot.ttl(wrongKey);
    throw tooMany(wait, `Too many wrong codes: wait ${wait} seconds, then sign in again`);
  }
  const user = await em.findOneOrFail(User, { id: userId });
  if (!(await checkTotp(deps, em, user, input.code))) {
    await deps.hot.incr(wrongKey, LIMITS.twoFactorWindowSeconds);
    throw new AppError(401, 'Wrong code: type the current six-digit code from your authenticator app');
  }
  await deps.hot.del(challengeKey, wrongKey);
  return signedIn(deps, em, user, req, out);
}
