import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, isBreached, verifyPassword } from '../../src/core/security/passwords.ts';

const LEAKED = 'a-long-but-leaked-passphrase-77';

describe('password storage', () => {
  it('stores Argon2id hashes that verify only the right password', async () => {
    const h = await hashPassword('violet-kettle-parade-41');
    expect(h).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(h, 'violet-kettle-parade-41')).toBe(true);
    expect(await verifyPassword(h, 'violet-kettle-parade-42')).toBe(false);
  });
});

describe('breached passwords', () => {
  let server: http.Server;
  let url: string;
  const asked: string[] = [];
  beforeAll(async () => {
    // A stand-in for the Pwned Passwords range API: GET /range/{first five hex of SHA-1}.
    const sha1 = createHash('sha1').update(LEAKED).digest('hex').toUpperCase();
    server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      const prefix = req.url?.replace('/range/', '') ?? '';
      const lines = ['0018A45C4D1DEF81644B54AB7F969B88D65:1'];
      if (prefix === sha1.slice(0, 5)) lines.push(`${sha1.slice(5)}:42`);
      res.end(lines.join('\r\n'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('refuses passwords on the offline list of common breached passwords', async () => {
    expect(await isBreached('1234567890')).toBe(true);
    expect(await isBreached('qwertyuiop')).toBe(true);
    expect(await isBreached('violet-kettle-parade-41')).toBe(false);
  });

  it('asks the configured range service with only a five-character prefix', async () => {
    expect(await isBreached(LEAKED)).toBe(false);
    expect(await isBreached(LEAKED, url)).toBe(true);
    expect(await isBreached('violet-kettle-parade-41', url)).toBe(false);
    expect(asked.every((u) => /^\/range\/[0-9A-F]{5}$/.test(u))).toBe(true);
  });

  it('does not block anyone when the range service is unreachable', async () => {
    expect(await isBreached(LEAKED, 'http://127.0.0.1:9')).toBe(false);
  });
});
