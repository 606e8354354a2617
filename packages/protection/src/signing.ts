/**
 * HMAC-SHA256 through Web Crypto, which both Node and the Workers runtime have: the edge verifies what the
 * service signed with the same code. Keys are base64url strings of 32 random bytes.
 */
const encoder = new TextEncoder();
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
const keys = new Map<string, Promise<HmacKey>>();

function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function importKey(key: string): Promise<HmacKey> {
  let k = keys.get(key);
  if (!k) {
    k = crypto.subtle.importKey('raw', fromBase64url(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    if (keys.size > 1000) keys.clear();
    keys.set(key, k);
  }
  return k;
}

/** The first `bytes` bytes of HMAC-SHA256(key, data), base64url. */
export async function mac(key: string, data: string, bytes = 16): Promise<string> {
  const sig = await crypto.subtle.sign('HMAC', await importKey(key), encoder.encode(data));
  return base64url(new Uint8Array(sig).subarray(0, bytes));
}

/** Compares two strings in time that does not depend on where they differ. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** A new random key (32 bytes, base64url). */
export function newKey(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** `payload` (JSON) signed: `<base64url(json)>.<mac>`. */
export async function seal(key: string, payload: unknown): Promise<string> {
  const body = base64url(encoder.encode(JSON.stringify(payload)));
  return `${body}.${await mac(key, body)}`;
}

/** The payload of a sealed token when its signature holds under `key`, else null. Never throws. */
export async function unseal<T>(key: string, token: string): Promise<T | null> {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const body = token.slice(0, dot);
  try {
    if (!sameText(await mac(key, body), token.slice(dot + 1))) return null;
    return JSON.parse(new TextDecoder().decode(fromBase64url(body))) as T;
  } catch {
    return null;
  }
}

/** The payload's site, read without checking the signature (to find which site's key checks it). */
export function peek<T>(token: string): T | null {
  try {
    const body = token.slice(0, token.lastIndexOf('.'));
    return JSON.parse(new TextDecoder().decode(fromBase64url(body))) as T;
  } catch {
    return null;
  }
}
