import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { describe, expect, it } from 'vitest';
import { blankAddresses, createLogger } from '../../src/core/logger.ts';
import { newRequestScope, requestIdFrom, runInRequest } from '../../src/core/observe/request-scope.ts';
import { captureLogs } from '../support/logs.ts';

/** IPv6 addresses in every text form (see the file's header for its source). */
const IPV6 = readFileSync(new URL('./corpora/ipv6-addresses.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'));

/** Real public IPv4 addresses: public resolvers and the documentation ranges (RFC 5737), and a private one. */
const IPV4 = ['1.1.1.1', '8.8.8.8', '9.9.9.9', '192.0.2.1', '198.51.100.20', '203.0.113.255', '10.0.0.1', '172.16.4.2'];
/** The machine's own: loopback and unspecified, kept whole (where the server listens). */
const OWN = ['127.0.0.1', '127.1.2.3', '0.0.0.0', '::1', '::', '0:0:0:0:0:0:0:1', '0:0:0:0:0:0:0:0'];

describe('blankAddresses: every address, wherever it stands in a line', () => {
  const places = (a: string) => [`from ${a} ok`, `"ip":"${a}"`, `(${a}).`, `client=${a}, next`];

  it('blanks each IPv6 address of the corpus in every place, and brackets with a port keep the port', () => {
    const addresses = IPV6.filter((a) => isIPv6(a) && !OWN.includes(a));
    expect(addresses.length).toBeGreaterThan(150);
    for (const a of addresses) {
      for (const line of places(a)) expect(blankAddresses(line)).toBe(line.replace(a, '[ip]'));
      expect(blankAddresses(`[${a}]:443`)).toBe('[[ip]]:443');
    }
  });

  it('blanks IPv4 addresses, with a port too', () => {
    for (const a of IPV4) {
      for (const line of places(a)) expect(blankAddresses(line)).toBe(line.replace(a, '[ip]'));
      expect(blankAddresses(`${a}:8080`)).toBe('[ip]:8080');
    }
  });

  it('keeps loopback and unspecified addresses, the machine’s own: the line saying where the server listens stays whole', () => {
    for (const a of OWN) expect(blankAddresses(`listening on ${a}`)).toBe(`listening on ${a}`);
    expect(blankAddresses('listening on http://127.0.0.1:8080 and http://[::1]:8080')).toBe(
      'listening on http://127.0.0.1:8080 and http://[::1]:8080',
    );
  });

  it('leaves what only looks like one: times, versions, MAC addresses, ids, punctuation', () => {
    for (const text of [
      '2026-11-28T03:54:48.111Z',
      'at 12:34:56',
      'v1.2.3.4',
      'version 1.2.3.4.5',
      '@ip-location-db/asn 2.3.2026061719',
      'a1:b2:c3:d4:e5:f6',
      'site 0f8e2b1c-3d4e-4f5a-8b6c-7d8e9f0a1b2c',
      'Foo :: bar',
      'std::vector',
      'file.ts:12:34',
      '999.1.1.1',
    ]) {
      expect(blankAddresses(text)).toBe(text);
    }
  });
});

describe('createLogger', () => {
  it('writes one JSON object per line: level, ISO time, message and fields', () => {
    const logs = captureLogs();
    const log = createLogger('debug', { format: 'json', destination: logs.destination });
    log.info('listening', { port: 8080, kind: 'memory' });
    log.debug('detail');
    const [info, debug] = logs.lines();
    expect(info).toMatchObject({ level: 'info', msg: 'listening', port: 8080, kind: 'memory', pid: process.pid });
    expect(new Date(info?.time as string).toISOString()).toBe(info?.time);
    expect(debug).toMatchObject({ level: 'debug', msg: 'detail' });
    expect(info?.reqId).toBeUndefined();
  });

  it('leaves out lines below its level', () => {
    const logs = captureLogs();
    const log = createLogger('warn', { format: 'json', destination: logs.destination });
    log.info('not this');
    log.warn('this');
    expect(logs.lines().map((l) => l.msg)).toEqual(['this']);
  });

  it('adds the request id to every line written while a request is served, awaits included', async () => {
    const logs = captureLogs();
    const log = createLogger('info', { format: 'json', destination: logs.destination });
    await runInRequest(newRequestScope('GET', 'req-7'), async () => {
      log.info('before');
      await new Promise((r) => setTimeout(r, 1));
      log.warn('after a timer');
    });
    log.info('outside');
    expect(logs.lines().map((l) => [l.msg, l.reqId])).toEqual([
      ['before', 'req-7'],
      ['after a timer', 'req-7'],
      ['outside', undefined],
    ]);
  });

  it('writes an error as its type, message and stack, not its other properties', () => {
    const logs = captureLogs();
    const told: [unknown, string][] = [];
    const log = createLogger('info', { format: 'json', destination: logs.destination, onError: (e, m) => told.push([e, m]) });
    const err = Object.assign(new TypeError('bad input'), { body: 'a body that must stay out' });
    log.error('request failed', err);
    const [line] = logs.lines();
    expect(line).toMatchObject({ level: 'error', msg: 'request failed', err: { type: 'TypeError', message: 'bad input' } });
    expect((line?.err as { stack?: string } | undefined)?.stack).toContain('TypeError: bad input');
    expect(logs.text()).not.toContain('a body that must stay out');
    expect(told).toEqual([[err, 'request failed']]);
  });

  it('in production blanks secrets and addresses in every line, and each line stays valid JSON', () => {
    const logs = captureLogs();
    const log = createLogger('debug', { format: 'json', redact: true, destination: logs.destination });
    log.info('reset link https://x.example/reset?token=s3cr3t"quoted&step=2 from 203.0.113.9', { client: '2001:db8::1' });
    log.error('upstream refused', new Error('connect ECONNREFUSED 10.0.0.5:5432 with ust_abcdef123456'));
    const lines = logs.lines();
    expect(lines).toHaveLength(2);
    const text = logs.text();
    for (const leak of ['s3cr3t', '203.0.113.9', '2001:db8::1', '10.0.0.5', 'ust_abcdef123456']) expect(text).not.toContain(leak);
    expect(lines[0]).toMatchObject({ client: '[ip]' });
    expect(lines[1]?.err).toMatchObject({ message: 'connect ECONNREFUSED [ip]:5432 with ust_[redacted]' });
  });

  it('outside production keeps addresses (a developer reads them)', () => {
    const logs = captureLogs();
    createLogger('info', { format: 'json', destination: logs.destination }).info('from 203.0.113.9');
    expect(logs.lines()[0]?.msg).toBe('from 203.0.113.9');
  });

  it('the readable format: time, level, message, fields as key=value, the stack below', () => {
    const logs = captureLogs();
    const log = createLogger('info', { format: 'readable', destination: logs.destination });
    runInRequest(newRequestScope('POST', 'req-9'), () => {
      log.info('GET /v1/sites 200 3 ms', { route: '/v1/sites', status: 200, note: 'two words' });
      log.error('failed', new Error('boom'));
    });
    const [first, second] = logs.text().split(/\n(?=\d{4}-)/);
    expect(first).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO GET \/v1\/sites 200 3 ms reqId=req-9 route=\/v1\/sites status=200 note="two words"$/,
    );
    expect(second).toMatch(/^\S+ ERROR failed reqId=req-9\nError: boom\n\s+at /);
  });
});

describe('requestIdFrom', () => {
  it('keeps 1–64 letters, digits and ._:- and replaces anything else with a new id', () => {
    expect(requestIdFrom('abc-DEF_1.2:3')).toBe('abc-DEF_1.2:3');
    expect(requestIdFrom('x'.repeat(64))).toBe('x'.repeat(64));
    const made = [undefined, '', 'x'.repeat(65), 'a\nb', 'a\r\nSet-Cookie: x=1', 'a b', ['a', 'b']].map((h) => requestIdFrom(h));
    for (const id of made) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(made).size).toBe(made.length);
  });
});
