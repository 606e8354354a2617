import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Membership, User, Workspace } from '@us/db';
import { LIMITS } from '@us/shared';
import type { RequestInfo } from '../../actor/request-info.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { normaliseEmail } from '../../core/mail/address.ts';
import { mayMail, mayMailOncePerDay } from '../../core/mail/budget.ts';
import { alreadyRegisteredMail, verificationMail } from '../../core/mail/templates.ts';
import { hashPassword, isBreached, verifyPassword } from '../../core/security/passwords.ts';
import { consumeEmailToken, emailLink, findLiveEmailToken, issueEmailToken } from './email-tokens.ts';
import { addressTag, countGuess, throttleKeys } from './throttle.ts';

/** Sign-ups are counted per address over one fixed hour. */
const SIGNUP_WINDOW_SECONDS = 3600;

export const SIGNUP_MESSAGE =
  'Check your inbox: we sent a link to confirm the address. If it already has an account, we sent sign-in help instead.';
export const RESEND_MESSAGE = 'If that address has an account waiting for confirmation, a new link is on its way.';

export { normaliseEmail };

export async function refuseBreached(deps: Deps, password: string, field: string) {
  if (await isBreached(password, deps.env.PWNED_PASSWORDS_URL)) {
    throw badRequest(
      field,
      `Choose another ${field === 'password' ? 'password' : 'new password'}: this one appears in known data breaches`,
    );
  }
}

async function sendSafely(deps: Deps, send: () => Promise<void>) {
  try {
    await send();
  } catch (err) {
    deps.logger.error('sending e-mail failed (the person can ask for the link again)', err);
  }
}

/**
 * Sends after the answer, where the answer must not tell whether an account exists: awaited, the mail server's
 * exchange (100 ms to seconds) was time only an address with an account took, so timing one request told.
 */
export function sendAfterAnswer(deps: Deps, send: () => Promise<void>): void {
  void sendSafely(deps, send);
}

/**
 * Sign-up. The answer is the same whether or not the address is taken, so it cannot be used to find
 * out who has an account; the owner of a taken address gets an e-mail saying so instead.
 */
export async function signup(
  deps: Deps,
  em: EntityManager,
  input: { email: string; password: string; workspaceName?: string | undefined },
  req: RequestInfo,
) {
  // Counted per address before any work: each sign-up costs an Argon2 hash, and a new address an account.
  if (req.ip) {
    await countGuess(
      deps.hot,
      throttleKeys.signupByAddress(addressTag(deps.hot, req.ip)),
      LIMITS.signupsPerAddress,
      SIGNUP_WINDOW_SECONDS,
      (wait) => `Too many sign-ups from this address: try again in ${Math.ceil(wait / 60)} minutes`,
    );
  }
  const email = normaliseEmail(input.email);
  await refuseBreached(deps, input.password, 'password');
  const passwordHash = await hashPassword(input.password);
  const existing = await em.findOne(User, { email });
  if (existing) {
    if (await mayMailOncePerDay(deps.hot, email, 'already-registered')) {
      await sendSafely(deps, () => deps.mailer.send(alreadyRegisteredMail(email, `${deps.urls.app}/forgot-password`)));
    }
    return { message: SIGNUP_MESSAGE };
  }
  let secret: string;
  try {
    secret = await em.transactional(async (tx) => {
      const user = tx.create(User, { email, passwordHash });
      const ws = tx.create(Workspace, { name: input.workspaceName ?? `${email.split('@')[0]}'s workspace` });
      tx.create(Membership, { workspace: ws, user, role: 'owner' });
      await tx.flush();
      return issueEmailToken(tx, user.id, 'verify', LIMITS.verifyTokenTtlSeconds);
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) return { message: SIGNUP_MESSAGE };
    throw err;
  }
  if (await mayMail(deps.hot, email)) {
    await sendSafely(deps, () => deps.mailer.send(verificationMail(email, emailLink(deps.urls.app, 'verify', secret))));
  }
  return { message: SIGNUP_MESSAGE };
}

/** Spec §4: an unknown, used or expired link is answered 200 `verified: false`, not refused. */
const LINK_UNUSABLE = {
  verified: false,
  message: 'This confirmation link is invalid, used or expired: ask for a new one',
} as const;

/** Confirms the address: the link's token plus the account's password; starts no session. */
export async function verifyEmail(deps: Deps, em: EntityManager, input: { token: string; password: string }) {
  const row = await findLiveEmailToken(em, input.token, 'verify');
  if (!row) return LINK_UNUSABLE;
  const userId = row.user.id;
  const key = throttleKeys.verifyWrong(userId);
  await countGuess(
    deps.hot,
    key,
    LIMITS.verifyWrongPasswordsPerHour,
    3600,
    (wait) => `Too many wrong passwords: wait ${wait} seconds, or reset your password`,
  );
  const user = await em.findOneOrFail(User, { id: userId });
  if (!(await verifyPassword(user.passwordHash, input.password))) {
    throw new AppError(401, 'Wrong password: type the password you chose when signing up', { field: 'password' });
  }
  await deps.hot.del(key);
  if (!(await consumeEmailToken(em, row.id))) return LINK_UNUSABLE;
  if (!user.emailVerifiedAt) await em.nativeUpdate(User, { id: user.id }, { emailVerifiedAt: new Date() });
  return { verified: true };
}

/** Sends a fresh confirmation link when the address has an unconfirmed account; answers the same always. */
export async function resendVerification(deps: Deps, _em: EntityManager, input: { email: string }) {
  const email = normaliseEmail(input.email);
  // All of it after the answer: only an unconfirmed account's address took that time (see requestReset).
  sendAfterAnswer(deps, async () => {
    const em = deps.orm.em.fork();
    const user = await em.findOne(User, { email });
    // Within the address's mail budget, silently: the answer must not reveal anything.
    if (!user || user.emailVerifiedAt || !(await mayMail(deps.hot, email))) return;
    const secret = await issueEmailToken(em, user.id, 'verify', LIMITS.verifyTokenTtlSeconds);
    await deps.mailer.send(verificationMail(email, emailLink(deps.urls.app, 'verify', secret)));
  });
  return { message: RESEND_MESSAGE };
}

export { sendSafely };
