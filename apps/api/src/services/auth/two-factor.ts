import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '@us/db';
import { Secret, TOTP } from 'otpauth';
import type { Deps } from '../../deps.ts';
import { AppError, badRequest } from '../../errors.ts';
import { verifyPassword } from '../../security/passwords.ts';

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

async function requirePassword(user: User, password: string) {
  if (!(await verifyPassword(user.passwordHash, password))) {
    throw badRequest('password', 'Wrong password: type your current password');
  }
}

export async function enroll(deps: Deps, em: EntityManager, userId: string, password: string) {
  const user = await em.findOneOrFail(User, { id: userId });
  if (user.twoFactorEnabledAt) throw new AppError(409, 'Two-factor sign-in is already on: disable it first to enrol again');
  await requirePassword(user, password);
  const secret = new Secret({ size: 20 }).base32;
  await em.nativeUpdate(User, { id: user.id }, { totpSecretEnc: deps.ciphers.totp.encrypt(secret), totpLastStep: null });
  return { secret, otpauthUri: totpFor(secret, user.email).toString() };
}

export async function confirm(deps: Deps, em: EntityManager, userId: string, code: string) {
  const user = await em.findOneOrFail(User, { id: userId });
  if (user.twoFactorEnabledAt) throw new AppError(409, 'Two-factor sign-in is already on');
  if (!user.totpSecretEnc) throw badRequest('code', 'Start two-factor enrolment with your password first, then confirm a code');
  if (!(await checkTotp(deps, em, user, code))) {
    throw badRequest('code', 'Wrong code: type the current six-digit code from your authenticator app');
  }
  await em.nativeUpdate(User, { id: user.id }, { twoFactorEnabledAt: new Date() });
  return { enabled: true };
}

export async function disable(deps: Deps, em: EntityManager, userId: string, password: string, code: string) {
  const user = await em.findOneOrFail(User, { id: userId });
  if (!user.twoFactorEnabledAt) throw new AppError(409, 'Two-factor sign-in is not on: nothing to disable');
  await requirePassword(user, password);
  if (!(await checkTotp(deps, em, user, code))) {
    throw badRequest('code', 'Wrong code: type the current six-digit code from your authenticator app');
  }
  await em.nativeUpdate(User, { id: user.id }, { twoFactorEnabledAt: null, totpSecretEnc: null, totpLastStep: null });
  return { enabled: false };
}
