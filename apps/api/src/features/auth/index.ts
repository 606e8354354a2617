// The auth wing's public surface: what other wings may use (the layering lint holds them to this file).
export { normaliseEmail } from './accounts.ts';
export { emailLink } from './email-tokens.ts';
export { addressTag, countGuess } from './throttle.ts';
