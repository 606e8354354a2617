import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** URL-safe random secret with `bytes` of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Secrets (session ids, tokens, link tokens) are stored only as this hash. One-shot `hash`: the same
 * digest as a Hash object's, without making one (every token and session request hashes its credential).
 */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
