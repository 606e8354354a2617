import { createHash } from 'node:crypto';
import { mac } from '@us/protection';

/**
 * The check's proof of work, kept without server state: the challenge is an HMAC under the site's pass
 * key of the ticket, the difficulty and the moment the page was made, so the answer can be checked
 * later from what the form sends back, and nobody without the key can pick an easier challenge.
 *
 * The work is 2^bits SHA-256 tries on average, as eight parts: the browser finds eight distinct nonces
 * (8 hex digits each, ascending) such that SHA-256(challenge + nonce) starts with `bits - 3` zero bits.
 * The same average as one nonce with `bits` zero bits, but far less spread (one lucky or unlucky draw
 * no longer decides how long a person waits), and the progress bar counts real progress. The challenge
 * is 32 base64url characters, so challenge + nonce is exactly 40 bytes: one SHA-256 block in which only
 * two words change per try (see solver.ts).
 */
export const WORK = {
  /** Difficulty at risk 0 (about 4,000 tries). */
  minBits: 12,
  /** Difficulty at risk 100 (about a million tries). */
  maxRiskBits: 20,
  /** Each failed check of the day adds this many bits (four times the work)… */
  bitsPerFailure: 2,
  /** …up to this many. */
  maxPenaltyBits: 4,
  /** An answer older than this needs a new page (the ticket itself lasts ten minutes too). */
  freshSeconds: 600,
  /** Clock skew tolerated between nodes for the page's own timestamp. */
  skewSeconds: 60,
  /** Nonces per answer (a power of two)… */
  parts: 8,
  /** …each with this many fewer zero bits: log2(parts). */
  partDiscountBits: 3,
} as const;

/** Leading zero bits asked of a visitor: 12 at risk 0 to 20 at risk 100, plus the day's failures. */
export function bitsFor(risk: number, failedChecks: number): number {
  const r = Math.min(100, Math.max(0, Number.isFinite(risk) ? risk : 0));
  const base = WORK.minBits + Math.round(((WORK.maxRiskBits - WORK.minBits) * r) / 100);
  const failed = Math.max(0, Math.floor(Number.isFinite(failedChecks) ? failedChecks : 0));
  return base + Math.min(WORK.maxPenaltyBits, failed * WORK.bitsPerFailure);
}

/** The highest difficulty the service ever asks for: a form claiming more is not ours. */
export const MAX_BITS = WORK.maxRiskBits + WORK.maxPenaltyBits;

/** The challenge of one page: 32 base64url characters (24 bytes of HMAC-SHA256). */
export function challengeOf(passKey: string, ticket: string, bits: number, issuedAt: number): Promise<string> {
  return mac(passKey, `check-work\n${bits}\n${issuedAt}\n${ticket}`, 24);
}

/** The answer: eight nonces of 8 hex digits, ascending, written one after the other. */
export const NONCES = /^[0-9a-f]{64}$/;

/** Zero bits at the start of a digest. */
export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** True when one nonce has `partBits` zero bits for `challenge`. */
export function solvesPart(challenge: string, nonce: string, partBits: number): boolean {
  const digest = createHash('sha256').update(`${challenge}${nonce}`, 'latin1').digest();
  return leadingZeroBits(digest) >= partBits;
}

/** True when `nonces` (eight ascending nonces) answer `challenge` at `bits`. */
export function solves(challenge: string, nonces: string, bits: number): boolean {
  if (!NONCES.test(nonces)) return false;
  const parts = nonces.match(/.{8}/g) as string[];
  // Ascending: eight distinct nonces, and only one way to write an answer.
  for (let k = 1; k < parts.length; k++) if ((parts[k] as string) <= (parts[k - 1] as string)) return false;
  const partBits = bits - WORK.partDiscountBits;
  return parts.every((n) => solvesPart(challenge, n, partBits));
}
