// The private key of a service-account key file: checked once before it signs anything, then used to
// sign off the event loop. A key file is stranger input, and what one RSA signature costs grows with the
// cube of the key's size (a 16,384-bit key fits in the key file's 20,000 characters), and more for a key
// of random numbers in RSA's shape, so the sizes are bounded whatever the numbers are, and the signing
// runs on libuv's thread pool (the callback form of `crypto.sign`), never on the loop that answers
// requests.
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';

/** Modulus sizes accepted: Google makes 2,048-bit keys. */
export const RSA_BITS = { min: 2048, max: 4096 } as const;
/** The public exponent's size: Google's keys use 65537 (17 bits). */
const EXPONENT_BITS = 32;
/** How far a prime or CRT value may exceed half the modulus (balanced primes are exactly half). */
const HALF_SLACK_BITS = 8;

/**
 * A key refused before use. `notRsa`: it is no RSA private key at all; otherwise the message is a
 * sentence saying what is wrong with it and what to give instead.
 */
export class UnusableKey extends Error {
  constructor(
    message: string,
    readonly notRsa = false,
  ) {
    super(message);
  }
}

/** Bits of a big-endian unsigned number given in base64url (as in a JWK). */
function bitsOf(b64url: unknown): number {
  const bytes = Buffer.from(typeof b64url === 'string' ? b64url : '', 'base64url');
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] as number));
}

const NOT_RSA = 'its private_key is not an RSA key in PEM form';

/** Whether a big-endian unsigned number given in base64url is even (a prime of a key, or its modulus, never is). */
function isEven(b64url: unknown): boolean {
  const bytes = Buffer.from(typeof b64url === 'string' ? b64url : '', 'base64url');
  return bytes.length === 0 || ((bytes[bytes.length - 1] as number) & 1) === 0;
}

/**
 * The private key parsed and checked: RSA with a modulus of 2,048–4,096 bits, a public exponent of at
 * most 32 bits, two primes, and no number longer than such a key has. Otherwise UnusableKey.
 */
export function checkedSigningKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new UnusableKey(NOT_RSA, true);
  }
  if (key.asymmetricKeyType !== 'rsa') throw new UnusableKey(NOT_RSA, true);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < RSA_BITS.min || bits > RSA_BITS.max) {
    throw new UnusableKey(
      `The key file's private_key is an RSA key of ${bits.toLocaleString('en-US')} bits: give a key of 2,048 to 4,096 bits (Google makes 2,048-bit keys)`,
    );
  }
  let jwk: Record<string, unknown>;
  try {
    jwk = key.export({ format: 'jwk' }) as Record<string, unknown>;
  } catch {
    throw new UnusableKey(NOT_RSA, true);
  }
  const half = Math.ceil(bits / 2) + HALF_SLACK_BITS;
  const oversized =
    jwk.oth !== undefined ||
    bitsOf(jwk.e) > EXPONENT_BITS ||
    bitsOf(jwk.d) > bits ||
    ['p', 'q', 'dp', 'dq', 'qi'].some((name) => bitsOf(jwk[name]) > half) ||
    // An even modulus or prime: OpenSSL refuses to sign with it, which was a 500 at the first pull.
    ['n', 'p', 'q'].some((name) => isEven(jwk[name]));
  if (oversized) {
    throw new UnusableKey(
      "The key file's private_key is not an RSA key as Google makes them (two primes of half the modulus each, a public exponent of at most 32 bits): give the key file as Google made it",
    );
  }
  return key;
}

/**
 * An RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature, computed on libuv's thread pool. A key OpenSSL cannot sign
 * with is the key file's fault (UnusableKey), never the service's.
 */
export function signRs256(data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    sign('RSA-SHA256', data, key, (err, signature) =>
      err
        ? reject(
            new UnusableKey("The key file's private_key cannot sign (OpenSSL refused it): give the key file as Google made it"),
          )
        : resolve(signature),
    );
  });
}
