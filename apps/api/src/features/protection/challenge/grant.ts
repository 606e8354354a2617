import { seal, unseal } from '@us/protection';
import { randomToken } from '../../../core/security/tokens.ts';

/**
 * The grant a passed check hands the browser for `https://<hostname>/_us/pass?g=…`: sealed with the
 * site's pass key, two minutes, single use (`n` makes every grant distinct). It carries the site, the
 * hostname it is good for and the path to go back to; `/_us/pass` checks all three again.
 */
export interface Grant {
  s: string;
  h: string;
  p: string;
  /** Expiry, epoch seconds. */
  e: number;
  n: string;
}

export const GRANT_TTL_SECONDS = 120;

export function issueGrant(passKey: string, g: { s: string; h: string; p: string }, now = Date.now()): Promise<string> {
  const grant: Grant = { s: g.s, h: g.h, p: g.p, e: Math.floor(now / 1000) + GRANT_TTL_SECONDS, n: randomToken(12) };
  return seal(passKey, grant);
}

/** The grant when its signature holds under `passKey` and its fields are shaped right (expiry not checked). */
export async function openGrant(passKey: string, token: string): Promise<Grant | null> {
  const g = await unseal<Partial<Grant>>(passKey, token);
  if (!g || typeof g !== 'object') return null;
  if (typeof g.s !== 'string' || typeof g.h !== 'string' || typeof g.p !== 'string') return null;
  if (typeof g.e !== 'number' || !Number.isFinite(g.e) || typeof g.n !== 'string') return null;
  return g as Grant;
}
