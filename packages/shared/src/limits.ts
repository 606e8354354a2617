/** Lengths, lifetimes and throttles of spec §5 and §8, in one place. */
export const LIMITS = {
  newPassword: { min: 10, max: 1024 },
  existingPassword: { min: 1, max: 1024 },
  name: { min: 1, max: 80 },
  idempotencyKey: { min: 1, max: 255 },
  idempotencyTtlSeconds: 24 * 3600,
  /** New idempotency keys a workspace (or a caller without one) may use in 24 hours: each keeps its answer that long. */
  idempotencyKeysPerDay: 10_000,
  verifyTokenTtlSeconds: 24 * 3600,
  resetTokenTtlSeconds: 3600,
  sessionTtlSeconds: 30 * 24 * 3600,
  verifyWrongPasswordsPerHour: 5,
  twoFactorGuesses: 5,
  twoFactorWindowSeconds: 300,
  loginFailuresBeforeSlowdown: 3,
  /** Sign-in attempts an address may have failing in an hour; past them it is 429 without a check. */
  loginFailuresPerAddress: 100,
  /** Sign-ups an address may send in an hour (each an Argon2 hash, and a new account's rows); then 429. */
  signupsPerAddress: 30,
  changeWrongBeforeThrottle: 3,
  changeWrongSignsOut: 5,
  mcpCallsPerMinute: 600,
  mcpBatchMax: 20,
} as const;
