import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../../src/faces/collect/exchange.ts';

/** A request as Node's server hands it over, from `remote`, with these headers. */
function requestFrom(remote: string, headers: Record<string, string>) {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: remote });
  const req = new IncomingMessage(socket);
  req.headers = headers;
  return req;
}

/** Koa's own answer for `ctx.ip` under the same settings: what the lane must agree with. */
function koaIp(req: IncomingMessage, trust: boolean, hops: number) {
  const app = new Koa();
  app.proxy = trust;
  app.maxIpsCount = hops;
  return app.createContext(req, new ServerResponse(req)).ip;
}

describe('collect lane: the client address', () => {
  const cases: [string, Record<string, string>][] = [
    ['no forwarded header', {}],
    ['one entry', { 'x-forwarded-for': '203.0.113.7' }],
    ['a forged left-most entry before the proxy’s', { 'x-forwarded-for': '10.0.0.1, 198.51.100.4' }],
    ['three entries with spaces', { 'x-forwarded-for': ' 192.0.2.1 ,198.51.100.9,  203.0.113.200 ' }],
    ['an empty header', { 'x-forwarded-for': '' }],
    ['an empty last entry', { 'x-forwarded-for': '192.0.2.1, ' }],
    ['IPv6 entries', { 'x-forwarded-for': '2001:db8::1, 2001:db8::2' }],
  ];
  for (const [name, headers] of cases) {
    for (const trust of [false, true]) {
      for (const hops of [1, 2, 3]) {
        it(`${name}: trust ${trust}, ${hops} hop(s) as Koa`, () => {
          const req = requestFrom('127.0.0.1', headers);
          expect(clientAddress(req, { trust, hops })).toBe(koaIp(req, trust, hops));
        });
      }
    }
  }

  it('takes the proxy’s entry, not the forged one, with one trusted hop', () => {
    const req = requestFrom('127.0.0.1', { 'x-forwarded-for': '10.0.0.1, 198.51.100.4' });
    expect(clientAddress(req, { trust: true, hops: 1 })).toBe('198.51.100.4');
    expect(clientAddress(req, { trust: false, hops: 1 })).toBe('127.0.0.1');
  });
});
