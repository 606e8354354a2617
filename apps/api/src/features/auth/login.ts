import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '@us/db';
import { LIMITS } from '@us/shared';
import type { RequestInfo } from '../../actor/request-info.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { dummyVerify, verifyPassword } from '../../core/security/passwords.ts';
import { randomToken, sha256 } from '../../core/security/tokens.ts';
import type { ResponseOut } from '../../procedures/context.ts';
import { listMemberships } from '../me/index.ts';
import { normaliseEmail } from './accounts.ts';
import { startSession } from './sessions.ts';
import { addressTag, countGuess, LOGIN_WINDOW_SECONDS, refuseUntilReset, slowdownMs, throttleKeys } from './throttle.ts';
import { checkTotp } from './two-factor.ts';

const WRONG_SIGN_IN = 'Wrong e-mail or password: try again, or reset your password';
const CONFIRM_FIRST = 'Confirm your e-mail address first: open the link we sent, or ask for a new one';

async function signedIn(deps: Deps, em: EntityManager, user: User, req: RequestInfo, out: ResponseOut) {
  if (!(await startSession(em, user, req, out))) throw new AppError(401, PASSWORD_CHANGED);
  await deps.hot.del(throttleKeys.loginByEmail(normaliseEmail(user.email)));
  return { user: { id: user.id, email: user.email }, memberships: await listMemberships(em, user.id) };
}

/**
 * Counts this attempt against the address and the account before the password is checked, so attempts
 * sent at once each see the ones before them; answers how many failures came before this one. Past
 * LIMITS.loginFailuresPerAddress from the address it is 429 without a check: the slowdown delays each answer,
 * but guesses sent at once would each still be verified (Argon2, on the shared thread pool). An account has
 * no such bound, so no one can lock another person out by guessing.
 */
async function countAttempt(deps: Deps, address: string | null, email: string): Promise<number> {
  const addressKey = address ? throttleKeys.loginByAddress(address) : null;
  const [byAddress, byAccount] = await Promise.all([
    addressKey ? deps.hot.incr(addressKey, LOGIN_WINDOW_SECONDS) : 0,
    deps.hot.incr(throttleKeys.loginByEmail(email), LOGIN_WINDOW_SECONDS),
  ]);
  if (addressKey && byAddress > LIMITS.loginFailuresPerAddress) {
    await refuseUntilReset(
      deps.hot,
      addressKey,
      (wait) => `Too many failed sign-ins from this address: try again in ${Math.ceil(wait / 60)} minutes`,
    );
  }
  return Math.max(byAddress, byAccount) - 1;
}

/** The password was right: the account starts afresh, and this attempt comes off the address's count. */
async function passwordAccepted(deps: Deps, address: string | null, user: User) {
  await Promise.all([
    deps.hot.del(throttleKeys.loginByEmail(normaliseEmail(user.email))),
    address ? deps.hot.decrBy(throttleKeys.loginByAddress(address), 1) : undefined,
  ]);
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
  const address = req.ip ? addressTag(deps.hot, req.ip) : null;
  const delay = slowdownMs(await countAttempt(deps, address, email));
  if (delay > 0) await deps.sleep(delay);

  const ok = user ? await verifyPassword(user.passwordHash, input.password) : await dummyVerify(input.password);
  // A right password on an unconfirmed address is still a failed sign-in (it counts as one); only its
  // title and code differ, and only someone who knows the password sees them.
  if (!user || !ok || !user.emailVerifiedAt) {
    if (user && address) {
      // Which addresses failed against this account, so a password reset can take them back off.
      await deps.hot.hincrBy(throttleKeys.loginAddressesOfAccount(user.id), address, 1, LOGIN_WINDOW_SECONDS);
    }
    throw user && ok ? new AppError(401, CONFIRM_FIRST, { code: 'email-not-verified' }) : new AppError(401, WRONG_SIGN_IN);
  }
  await passwordAccepted(deps, address, user);
  if (user.twoFactorEnabledAt) {
    const challenge = randomToken(32);
    const begun: Challenge = { userId: user.id, password: passwordFingerprint(user.passwordHash) };
    await deps.hot.set(throttleKeys.twoFactorChallenge(sha256(challenge)), JSON.stringify(begun), LIMITS.twoFactorWindowSeconds);
    return { twoFactorRequired: true as const, challenge };
  }
  return signedIn(deps, em, user, req, out);
}

const PASSWORD_CHANGED = 'The password of this account was changed just now: sign in again with the new password';

/** A second step waiting for its code: whose, and which password began it (a fingerprint of its hash). */
interface Challenge {
  userId: string;
  password: string;
}

const passwordFingerprint = (passwordHash: string) => sha256(`password\n${passwordHash}`).slice(0, 32);

function challengeOf(stored: string | null): Challenge | null {
  if (!stored) return null;
  try {
    const c = JSON.parse(stored) as Partial<Challenge>;
    return typeof c.userId === 'string' && typeof c.password === 'string' ? { userId: c.userId, password: c.password } : null;
  } catch {
    // A step begun before steps carried the password: sign in again.
    return null;
  }
}

/** Second step: five guesses per account in five minutes, each counted before it is checked. */
export async function loginTwoFactor(
  deps: Deps,
  em: EntityManager,
  input: { challenge: string; code: string },
  req: RequestInfo,
  out: ResponseOut,
) {
  const challengeKey = throttleKeys.twoFactorChallenge(sha256(input.challenge));
  const begun = challengeOf(await deps.hot.get(challengeKey));
  if (!begun) throw new AppError(401, 'This sign-in step has expired: sign in again with your password');
  const { userId } = begun;
  const wrongKey = throttleKeys.twoFactorWrong(userId);
  await countGuess(
    deps.hot,
    wrongKey,
    LIMITS.twoFactorGuesses,
    LIMITS.twoFactorWindowSeconds,
    (wait) => `Too many wrong codes: wait ${wait} seconds, then sign in again`,
  );
  const user = await em.findOneOrFail(User, { id: userId });
  // The step was begun with a password that has been reset or changed since.
  if (passwordFingerprint(user.passwordHash) !== begun.password) {
    await deps.hot.del(challengeKey);
    throw new AppError(401, PASSWORD_CHANGED);
  }
  if (!(await checkTotp(deps, em, user, input.code))) {
    throw new AppError(401, 'Wrong code: type the current six-digit code from your authenticator app');
  }
  await deps.hot.del(challengeKey, wrongKey);
  return signedIn(deps, em, user, req, out);
}
