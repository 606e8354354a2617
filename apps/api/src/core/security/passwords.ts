import { createHash } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { loadOnce } from '../load-once.ts';

// Argon2id (the library's default algorithm) with OWASP's recommended minimum cost.
const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A hash to compare against when the account does not exist, so timing does not tell. */
let dummyHash: Promise<string> | undefined;
export function dummyVerify(password: string): Promise<boolean> {
  dummyHash ??= hashPassword('not-a-real-password-for-timing');
  return dummyHash.then((h) => verifyPassword(h, password)).then(() => false);
}

// The most common passwords from breach corpora, as shipped by zxcvbn-ts (offline): loaded when a password is
// first checked, so a node that never sees one does not hold the list.
const commonPasswords = loadOnce(() =>
  import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set<string>((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase())),
  ),
);

/**
 * True when the password is known from breaches: the offline list always, and, when `rangeUrl` is
 * configured, a k-anonymity range query (Pwned Passwords API: GET {url}/range/{first 5 of SHA-1}).
 * An unreachable range service does not block sign-up.
 */
export async function isBreached(password: string, rangeUrl?: string): Promise<boolean> {
  if ((await commonPasswords()).has(password.toLowerCase())) return true;
  if (!rangeUrl) return false;
  const sha1 = createHash('sha1').update(password).digest('hex').toUpperCase();
  try {
    const res = await fetch(`${rangeUrl.replace(/\/$/, '')}/range/${sha1.slice(0, 5)}`, {
      signal: AbortSignal.timeout(2000),
    });
    if (!res.ok) return false;
    const suffix = sha1.slice(5);
    return (await res.text()).split('\n').some((line) => {
      const [s, count] = line.trim().split(':');
      return s === suffix && Number(count) > 0;
    });
  } catch {
    return false;
  }
}
