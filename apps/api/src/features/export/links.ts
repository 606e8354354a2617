// Download links of an export: `<export id>.<file>.<expiry>.<mac>`, the MAC keyed from the app secret,
// so a link names its export and file and cannot be made or stretched by anyone else. The link is the
// credential (GET /v1/downloads/{token} needs no other): a bad MAC is 404 like a link no export made,
// an expired one 410.
import { EXPORT_LIMITS } from '@us/shared';
import type { Cipher } from '../../core/security/cipher.ts';
import { safeEqual } from '../../core/security/tokens.ts';

/** A file of an export: one of the five, or a raw-record file `archive/<kind>/<hour>.ndjson.gz`. */
export interface Link {
  exportId: string;
  file: string;
  /** Epoch seconds. */
  expires: number;
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');

export function makeLink(cipher: Cipher, exportId: string, file: string, now = Date.now()): Link & { token: string } {
  const expires = Math.floor(now / 1000) + EXPORT_LIMITS.linkSeconds;
  const body = `${exportId}.${b64(file)}.${expires}`;
  return { exportId, file, expires, token: `${body}.${cipher.mac(body)}` };
}

/** The link a token names, or null when it is not one this service made. */
export function readLink(cipher: Cipher, token: string): Link | null {
  const parts = token.split('.');
  if (parts.length !== 4) return null;
  const [exportId, file, expires, mac] = parts as [string, string, string, string];
  if (!safeEqual(cipher.mac(`${exportId}.${file}.${expires}`), mac) || !/^\d+$/.test(expires)) return null;
  return { exportId, file: Buffer.from(file, 'base64url').toString(), expires: Number(expires) };
}
