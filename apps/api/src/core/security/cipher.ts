import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a key derived from the app secret per purpose. Output: base64url(iv|tag|data).
 * `mac` fingerprints with a second key of the same purpose.
 */
export class Cipher {
  private readonly key: Buffer;
  private readonly macKey: Buffer;

  constructor(appSecret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', appSecret, 'unseen-stats', purpose, 32));
    this.macKey = Buffer.from(hkdfSync('sha256', appSecret, 'unseen-stats', `${purpose}:mac`, 32));
  }

  /**
   * HMAC-SHA256 (hex): a fingerprint of `value` that only holders of the app secret can compute, so a
   * reader of the store cannot test guesses of what was fingerprinted (a plain hash would let them).
   */
  mac(value: string): string {
    return createHmac('sha256', this.macKey).update(value).digest('hex');
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), data]).toString('base64url');
  }

  decrypt(sealed: string): string {
    const buf = Buffer.from(sealed, 'base64url');
    const d = createDecipheriv('aes-256-gcm', this.key, buf.subarray(0, 12));
    d.setAuthTag(buf.subarray(12, 28));
    return Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8');
  }
}
