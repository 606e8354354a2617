import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../../src/core/deps.ts';
import { tlsAskHandler } from '../../../src/features/hostnames/tls-ask.ts';

/**
 * Caddy asks at every name it has no certificate for, and anyone can make it ask by sending made-up TLS
 * server names: the answers are kept a few seconds, and one name is looked up once at a time.
 */
describe('the TLS ask answers', () => {
  const lookups: string[] = [];
  let live = new Set<string>();
  /** While set, lookups wait for it. */
  let hold: Promise<void> | null = null;
  let clock = 1_000_000;
  const orm = {
    em: {
      fork: () => ({
        async findOne(_entity: unknown, where: { hostname: string }) {
          lookups.push(where.hostname);
          if (hold) await hold;
          return live.has(where.hostname) ? { proxy: true, edgeStatus: 'active' } : null;
        },
      }),
    },
  };
  const deps = { orm, logger: { warn() {} } } as unknown as Pick<Deps, 'orm' | 'logger'>;
  const app = new Koa();
  const handler = tlsAskHandler(deps, { now: () => clock });
  app.use((ctx) => handler(ctx));
  let server: Server;
  let request: ReturnType<typeof supertest>;

  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server.once('listening', () => r()));
    request = supertest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const ask = (domain: string) => request.get('/proxy/tls-ask').query({ domain });

  it('looks a name up once for many asks at the same moment, then answers from memory', async () => {
    live = new Set(['busy.example.test']);
    let open = () => {};
    hold = new Promise<void>((r) => {
      open = r;
    });
    const asks = Array.from({ length: 20 }, () => ask('busy.example.test').then((r) => r.status));
    await expect.poll(() => lookups.filter((h) => h === 'busy.example.test').length).toBe(1);
    hold = null;
    open();
    expect(await Promise.all(asks)).toEqual(Array(20).fill(200));
    await ask('busy.example.test').expect(200);
    expect(lookups.filter((h) => h === 'busy.example.test')).toHaveLength(1);
  });

  it('keeps an answer about five seconds, the "no" answers too', async () => {
    live = new Set();
    await ask('soon.example.test').expect(404);
    live = new Set(['soon.example.test']);
    clock += 4_000;
    await ask('soon.example.test').expect(404);
    clock += 1_500;
    await ask('soon.example.test').expect(200);
    expect(lookups.filter((h) => h === 'soon.example.test')).toHaveLength(2);
  });
});
