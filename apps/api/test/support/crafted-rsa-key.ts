// A private key in RSA's shape (PKCS#1: modulus, exponents, "primes", CRT values) made of random numbers
// of the asked size: what a stranger can send in a key file without finding a single prime. Parsing it
// succeeds; signing with it costs more than with a real key of its size (the CRT result fails its check
// and is computed again with the whole private exponent), and the signature verifies against nothing.
import { randomBytes } from 'node:crypto';

const length = (n: number) => {
  if (n < 128) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let m = n; m > 0; m >>= 8) bytes.unshift(m & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const tlv = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag]), length(body.length), body]);
/** A DER INTEGER, positive. */
const integer = (b: Buffer) => tlv(0x02, b[0] !== undefined && b[0] & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
/** A random odd number of exactly `bits` bits (a multiple of 8). */
function odd(bits: number): Buffer {
  const b = randomBytes(bits / 8);
  b[0] = (b[0] as number) | 0x80;
  b[b.length - 1] = (b[b.length - 1] as number) | 1;
  return b;
}

/**
 * A PEM "RSA PRIVATE KEY" whose modulus has `bits` bits (a multiple of 16). By default shaped like a
 * real one (public exponent 65537, primes and CRT values of half the modulus); `primeBits` and
 * `exponentBits` (multiples of 8) make those numbers larger, and `evenModulus` the modulus even, as a stranger may.
 */
export function craftedRsaKey(
  bits: number,
  opts: { primeBits?: number; exponentBits?: number; evenModulus?: boolean } = {},
): string {
  const half = () => integer(odd(opts.primeBits ?? bits / 2));
  const modulus = odd(bits);
  // An even modulus: no RSA key has one, and OpenSSL refuses to sign with it.
  if (opts.evenModulus) modulus[modulus.length - 1] = (modulus[modulus.length - 1] as number) & 0xfe;
  const der = tlv(
    0x30,
    Buffer.concat([
      integer(Buffer.from([0])),
      integer(modulus),
      integer(opts.exponentBits ? odd(opts.exponentBits) : Buffer.from([1, 0, 1])),
      integer(odd(bits)),
      half(),
      half(),
      half(),
      half(),
      half(),
    ]),
  );
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN RSA PRIVATE KEY-----\n${lines.join('\n')}\n-----END RSA PRIVATE KEY-----\n`;
}
