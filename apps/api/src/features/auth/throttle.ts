import { tooMany } from '../../core/errors.ts';
import type { HotStore } from '../../core/hot/store.ts';
import { budgetClient } from '../../core/security/client-info.ts';
import { sha256 } from '../../core/security/tokens.ts';

/** Sign-in failures are counted per address and per account over one fixed hour. */
export const LOGIN_WINDOW_SECONDS = 3600;

/**
 * Hot-state keys of the sign-in throttles, in one place so that reset can clear them. Addresses appear
 * only hashed (`addressTag`).
 */
export const throttleKeys = {
  loginByAddress: (tag: string) => `login-fail:ip:${tag}`,
  signupByAddress: (tag: string) => `signup:ip:${tag}`,
  /**
   * Failures against an e-mail address, whether an account has it or not: counted for accounts only, the slowdown
   * came to addresses with an account alone, and timing a few failed sign-ins told which had one.
   */
  loginByEmail: (email: string) => `login-fail:email:${sha256(`email\n${email}`)}`,
  /** Hash: address tag → failures from it against this account, so a reset can take them back off. */
  loginAddressesOfAccount: (userId: string) => `login-fail:acct-ips:${userId}`,
  verifyWrong: (userId: string) => `verify-wrong:${userId}`,
  twoFactorWrong: (userId: string) => `2fa-wrong:${userId}`,
  twoFactorChallenge: (hash: string) => `2fa-challenge:${hash}`,
};

/** A client address as it appears in hot state: tagged with the deployment's key, never the address itself. */
export const addressTag = (hot: HotStore, ip: string) => hot.tag(`address\n${budgetClient(ip)}`);

/** Failures allowed before answers slow down, and how the delay grows (doubling, capped). */
const FREE_FAILURES = 3;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;

/** Delay before the next attempt after `failures` failures: none until three, then doubling. */
export function slowdownMs(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (failures - FREE_FAILURES));
}

/**
 * Counts one guess before it is checked (an atomic INCR, so guesses sent at once each see the ones
 * before them), then refuses with 429 once more than `limit` were made in the window, without checking.
 */
export async function countGuess(
  hot: HotStore,
  key: string,
  limit: number,
  windowSeconds: number,
  title: (waitSeconds: number) => string,
): Promise<void> {
  if ((await hot.incr(key, windowSeconds)) <= limit) return;
  await refuseUntilReset(hot, key, title);
}

/** The 429 of a counter past its limit, with `Retry-After` until its window ends. */
export async function refuseUntilReset(hot: HotStore, key: string, title: (waitSeconds: number) => string): Promise<never> {
  const wait = Math.max(1, await hot.ttl(key));
  throw tooMany(wait, title(wait));
}

/**
 * A password reset clears the account's sign-in throttling entirely: its own counters, and the failures
 * against it at the addresses they came from (other failures from those addresses keep counting).
 */
export async function clearAccountThrottles(hot: HotStore, userId: string, email: string): Promise<void> {
  const tally = throttleKeys.loginAddressesOfAccount(userId);
  const byAddress = await hot.hgetall(tally);
  await Promise.all(Object.entries(byAddress).map(([tag, n]) => hot.decrBy(throttleKeys.loginByAddress(tag), Number(n))));
  await hot.del(tally, throttleKeys.loginByEmail(email), throttleKeys.verifyWrong(userId), throttleKeys.twoFactorWrong(userId));
}
