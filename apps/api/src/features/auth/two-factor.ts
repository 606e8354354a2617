import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '@us/db';
import { LIMITS } from '@us/shared';
import { Secret, TOTP } from 'otpauth';
import type { RequestInfo } from '../../actor/request-info.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import type { ResponseOut } from '../../procedures/context.ts';
import { checkSessionPassword, type SessionPerson } from './session-password.ts';
import { countGuess, throttleKeys } from './throttle.ts';

const ISSUER = 'Unseen Stats';
const PERIOD = 30;

function totpFor(secretBase32: string, email: string) {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

/**
 * True when `code` is valid now (one step of clock drift either way) and its time step is newer than
 * the last accepted one, so a code cannot be replayed.
 */
export async function checkTotp(deps: Deps, em: EntityManager, user: User, code: string): Promise<boolean> {
  if (!user.totpSecretEnc) return false;
  const totp = totpFor(deps.ciphers.totp.decrypt(user.totpSecretEnc), user.email);
  const delta = totp.validate({ token: code, window: 1 });
  if (delta === null) return false;
  const step = Math.floor(Date.now() / 1000 / PERIOD) + delta;
  if (user.totpLastStep !== null && user.totpLastStep !== undefined && step <= user.totpLastStep) return false;
  const n = await em.nativeUpdate(
    User,
    { id: user.id, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] },
    { totpLastStep: step },
  );
  return n === 1;
}

/**
 * Checks a code for enrolment or disabling against the account's wrong-code count (the one two-factor
 * sign-in uses): counted before it is checked, refused unchecked past five; a right code clears it.
 */
async function requireCode(deps: Deps, em: EntityManager, user: User, code: string) {
  const key = throttleKeys.twoFactorWrong(user.id);
  await countGuess(
    deps.hot,
    key,
    LIMITS.twoFactorGuesses,
    LIMITS.twoFactorWindowSeconds,
    (wait) => `Too many wrong codes: wait ${wait} seconds, then try again`,
  );
  if (!(await checkTotp(deps, em, user, code))) {
    throw badRequest('code', 'Wrong code: type the current six-digit code from your authenticator app');
  }
  await deps.hot.del(key);
}

export async function enroll(
  deps: Deps,
  em: EntityManager,
  who: SessionPerson,
  password: string,
  req: RequestInfo,
  out: ResponseOut,
) {
  const user = await em.findOneOrFail(User, { id: who.userId });
  if (user.twoFactorEnabledAt) throw new AppError(409, 'Two-factor sign-in is already on: disable it first to enrol again');
  await checkSessionPassword(deps, em, who, password, 'password', req, out);
  const secret = new Secret({ size: 20 }).base32;
  await em.nativeUpdate(User, { id: user.id }, { totpSecretEnc: deps.ciphers.totp.encrypt(secret), totpLastStep: null });
  return { secret, otpauthUri: totpFor(secret, user.email).toString() };
}

export async function confirm(deps: Deps, em: EntityManager, userId: string, code: string) {
  const user = await em.findOneOrFail(User, { id: userId });
  if (user.twoFactorEnabledAt) throw new AppError(409, 'Two-factor sign-in is already on');
  if (!user.totpSecretEnc) throw badRequest('code', 'Start two-factor enrolment with your password first, then confirm a code');
  await requireCode(deps, em, user, code);
  await em.nativeUpdate(User, { id: user.id }, { twoFactorEnabledAt: new Date() });
  return { enabled: true };
}

export async function disable(
  deps: Deps,
  em: EntityManager,
  who: SessionPerson,
  input: { password: string; code: string },
  req: RequestInfo,
  out: ResponseOut,
) {
  const user = await em.findOneOrFail(User, { id: who.userId });
  if (!user.twoFactorEnabledAt) throw new AppError(409, 'Two-factor sign-in is not on: nothing to disable');
  await checkSessionPassword(deps, em, who, input.password, 'password', req, out);
  await requireCode(deps, em, user, input.code);
  await em.nativeUpdate(User, { id: user.id }, { twoFactorEnabledAt: null, totpSecretEnc: null, totpLastStep: null });
  return { enabled: false };
}
