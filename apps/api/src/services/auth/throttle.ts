import type { HotStore } from '../../hot/store.ts';

/** Hot-state keys of the sign-in throttles, in one place so that reset can clear them. */
export const throttleKeys = {
  loginByAddress: (ip: string) => `login-fail:ip:${ip}`,
  loginByAccount: (userId: string) => `login-fail:acct:${userId}`,
  verifyWrong: (userId: string) => `verify-wrong:${userId}`,
  twoFactorWrong: (userId: string) => `2fa-wrong:${userId}`,
  twoFactorChallenge: (hash: string) => `2fa-challenge:${hash}`,
};

/** Failures allowed before answers slow down, and how the delay grows (doubling, capped). */
const FREE_FAILURES = 3;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;

/** Delay before the next attempt after `failures` failures: none until three, then doubling. */
export function slowdownMs(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (failures - FREE_FAILURES));
}

export async function counter(hot: HotStore, key: string): Promise<number> {
  return Number((await hot.get(key)) ?? 0);
}
