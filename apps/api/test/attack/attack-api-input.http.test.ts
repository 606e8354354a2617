import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPC_MAX_BATCH } from '../../src/faces/trpc-handler.ts';
import { expectProblem } from '../support/auth-helpers.ts';
import { createToken, createUser, GOOD_PASSWORD, startTestServer, type TestServer } from '../support/server.ts';
import { siteOfNewOwner } from '../support/sites.ts';

/**
 * Attacks on the API's door, driven over HTTP against the running server: control characters in
 * management input, oversized bodies on every face, inputs smuggled in a POST's query string, and tRPC
 * batches that multiply guesses. Every answer is a problem, never a 5xx.
 */
describe('attacks on API input', () => {
  let t: TestServer;
  let auth: string;
  let siteId: string;

  beforeAll(async () => {
    t = await startTestServer();
    const owner = await siteOfNewOwner(t, {
      scopes: ['sites:read', 'sites:write', 'members:read', 'members:write', 'tokens:read', 'tokens:write', 'analytics:read'],
    });
    auth = owner.auth;
    siteId = owner.siteId;
  });
  afterAll(() => t.close());

  describe('a NUL character in free text is 400 naming the field, never 500', () => {
    const cases: [string, 'post' | 'patch' | 'get', () => string, Record<string, unknown> | null, string][] = [
      ['workspace name', 'patch', () => '/v1/workspace', { name: 'Acme\u0000' }, 'name'],
      ['token name', 'post', () => '/v1/tokens', { name: 'ci\u0000', scopes: ['sites:read'] }, 'name'],
      ['site name on create', 'post', () => '/v1/sites', { name: 'Shop\u0000' }, 'name'],
      ['site name on rename', 'patch', () => `/v1/sites/${siteId}`, { name: 'Shop\u0000' }, 'name'],
      ['site time zone', 'patch', () => `/v1/sites/${siteId}`, { timezone: 'Europe/Berlin\u0000' }, 'timezone'],
      ['goal name', 'post', () => `/v1/sites/${siteId}/goals`, { name: 'Sign\u0000up', type: 'event', match: 'signup' }, 'name'],
      ['goal match', 'post', () => `/v1/sites/${siteId}/goals`, { name: 'Signup', type: 'event', match: 'sign\u0000' }, 'match'],
      [
        'experiment variant',
        'post',
        () => `/v1/sites/${siteId}/experiments`,
        { key: 'hero', variants: ['a', 'b\u0000'] },
        'variants[1]',
      ],
      [
        'internal networks list',
        'patch',
        () => `/v1/sites/${siteId}/settings`,
        { internalNetworks: ['10.0.0.0/8', '\u0000'] },
        'internalNetworks[1]',
      ],
      [
        'bot window note',
        'patch',
        () => `/v1/sites/${siteId}/settings`,
        { botWindows: [{ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', note: 'x\u0000' }] },
        'botWindows[0].note',
      ],
      ['hostname', 'post', () => `/v1/sites/${siteId}/hostnames`, { hostname: 'shop\u0000.example' }, 'hostname'],
      ['stats filter in the query string', 'get', () => `/v1/sites/${siteId}/stats?where.page=%2F%00`, null, 'where.page'],
      [
        'stats filter in a JSON query',
        'post',
        () => `/v1/sites/${siteId}/stats/query`,
        { metrics: 'pageviews', where: { page: '/\u0000' } },
        'where.page',
      ],
      ['invitation address', 'post', () => '/v1/members/invites', { email: 'a\u0000@example.com', role: 'viewer' }, 'email'],
      ['segment name', 'post', () => `/v1/sites/${siteId}/segments`, { name: 'FR\u0000', filters: { country: 'FR' } }, 'name'],
      [
        'segment filter value',
        'post',
        () => `/v1/sites/${siteId}/segments`,
        { name: 'French', filters: { country: 'F\u0000' } },
        'filters.country',
      ],
      ['annotation text', 'post', () => `/v1/sites/${siteId}/annotations`, { day: '2026-11-20', text: 'v2\u0000' }, 'text'],
      [
        'funnel step',
        'post',
        () => `/v1/sites/${siteId}/funnels`,
        {
          name: 'Signup',
          steps: [
            { type: 'page', match: '/' },
            { type: 'event', match: 'sign\u0000up' },
          ],
        },
        'steps[1].match',
      ],
      ['property filter', 'get', () => `/v1/sites/${siteId}/stats?where.prop%3Aplan=pro%00`, null, 'where.prop:plan'],
      ['segment chosen by name', 'get', () => `/v1/sites/${siteId}/summary?segment=FR%00`, null, 'segment'],
    ];
    for (const [what, method, path, body, field] of cases) {
      it(what, async () => {
        const req = t.request[method](path()).set('Authorization', auth);
        const res = await (body ? req.send(body) : req);
        expectProblem(res, 400, field);
      });
    }

    it('a control character in an object key is refused too', async () => {
      const res = await t.request
        .post(`/v1/sites/${siteId}/stats/batch`)
        .set('Authorization', auth)
        .send({ queries: { 'a\u0007': { metrics: 'pageviews' } } });
      expectProblem(res, 400, 'queries.a\u0007');
    });

    it('an extra field with an empty name is named, never an empty field', async () => {
      const res = await t.request.patch('/v1/workspace').set('Authorization', auth).send({ name: 'Acme', '': 1 });
      expectProblem(res, 400, '(empty name)');
    });

    it('input nested deeper than any field needs is 400, even with an Idempotency-Key', async () => {
      const deep = `${'['.repeat(5000)}"x"${']'.repeat(5000)}`;
      const res = await t.request
        .post(`/v1/sites/${siteId}/goals`)
        .set('Authorization', auth)
        .set('Idempotency-Key', 'deep-1')
        .set('Content-Type', 'application/json')
        .send(`{"name":"G","type":"event","match":${deep}}`);
      expectProblem(res, 400, 'match');
    });

    it('and the site is unchanged afterwards', async () => {
      const res = await t.request.get(`/v1/sites/${siteId}`).set('Authorization', auth).expect(200);
      expect(res.body.site.name).toBe('Test site');
    });
  });

  describe('a lone surrogate (half of a UTF-16 pair) is 400 naming the field, never 500', () => {
    // JSON carries one as an escape; PostgreSQL refuses it in jsonb, and no field needs one.
    const cases: [string, 'post' | 'patch', () => string, string, string][] = [
      [
        'experiment variant',
        'post',
        () => `/v1/sites/${siteId}/experiments`,
        '{"key":"hero","variants":["a","b\\udfff"]}',
        'variants[1]',
      ],
      [
        'bot window note',
        'patch',
        () => `/v1/sites/${siteId}/settings`,
        '{"botWindows":[{"from":"2026-01-01T00:00:00Z","to":"2026-01-02T00:00:00Z","note":"\\ud800"}]}',
        'botWindows[0].note',
      ],
      ['site name', 'patch', () => `/v1/sites/${siteId}`, '{"name":"Shop \\udbff\\udbff"}', 'name'],
      [
        'an object key',
        'post',
        () => `/v1/sites/${siteId}/stats/batch`,
        '{"queries":{"a\\ud800":{"metrics":"pageviews"}}}',
        'queries.a\ud800',
      ],
    ];
    for (const [what, method, path, body, field] of cases) {
      it(what, async () => {
        const res = await t.request[method](path()).set('Authorization', auth).set('Content-Type', 'application/json').send(body);
        expectProblem(res, 400, field);
      });
    }

    it('over MCP too, as an isError result', async () => {
      const res = await t.request
        .post('/mcp')
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .send(
          '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        )
        .expect(200);
      expect(res.body.result).toBeDefined();
      const call = await t.request
        .post('/mcp')
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', '2025-06-18')
        .send(
          `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_site_experiment","arguments":{"id":"${siteId}","key":"hero","variants":["a","\\udfff"]}}}`,
        )
        .expect(200);
      expect(call.body.result.isError).toBe(true);
      expect(call.body.result.structuredContent).toMatchObject({ status: 400, field: 'variants[1]' });
    });

    it('a well-formed pair (an emoji) is still accepted', async () => {
      const res = await t.request.patch(`/v1/sites/${siteId}`).set('Authorization', auth).send({ name: 'Shop 😀' });
      expect(res.status).toBe(200);
      await t.request.patch(`/v1/sites/${siteId}`).set('Authorization', auth).send({ name: 'Test site' }).expect(200);
    });
  });

  describe('query parameters named like members of Object are plain unknown names', () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      it(`?${name}=1 is a 400 naming it, never 500`, async () => {
        const res = await t.request.get(`/v1/sites/${siteId}/top/page?${name}=1`).set('Authorization', auth);
        expectProblem(res, 400, name);
      });
    }

    it('?__proto__=… is no prototype and no filter: the answer is the unfiltered table', async () => {
      const res = await t.request.get(`/v1/sites/${siteId}/top/page?__proto__=1&__proto__=2`).set('Authorization', auth);
      expect(res.status).toBe(200);
      expect(res.body.rows).toEqual([]);
    });
  });

  // The defect: each distinct key of a query string was looked up again over the whole string, before any credential
  // was checked: ~5,000 two-letter keys (16 KB, Node's header limit) cost ~25 million comparisons a request.
  describe('a query string of thousands of parameters', () => {
    const many = Array.from({ length: 2_000 }, (_, i) => `k${i.toString(36)}=`).join('&');

    it('is a 400 naming the query, with or without credentials, before anything reads it', async () => {
      expectProblem(await t.request.get(`/v1/stats/catalogue?${many}`), 400, '(query)');
      const res = await t.request.get(`/v1/sites/${siteId}/top/page?${many}`).set('Authorization', auth);
      expectProblem(res, 400, '(query)');
      expect(res.body.title).toMatch(/at most 200 query parameters/);
    });

    it('while a question of many filters is still answered', async () => {
      const filters = ['country=DE', 'device=desktop', 'browser=Firefox', 'os=Linux', 'source=Google'];
      const q = `metrics=pageviews&by=page&${filters.map((f) => `where.${f}`).join('&')}&limit=50&days=30`;
      const res = await t.request.get(`/v1/sites/${siteId}/stats?${q}`).set('Authorization', auth);
      expect(res.status).toBe(200);
    });
  });

  describe('input nested deeper than any field needs is 400, never 500', () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

    it('REST: a body nested 5,000 levels deep with an Idempotency-Key (the fingerprint walks it first)', async () => {
      const res = await t.request
        .post(`/v1/sites/${siteId}/keys`)
        .set('Authorization', auth)
        .set('Idempotency-Key', 'deep-body')
        .set('Content-Type', 'application/json')
        .send(`{"kind":"secret","x":${deep(5_000)}}`);
      expectProblem(res, 400, 'x');
      expect(res.body.title).toMatch(/nested at most 32 levels/);
    });

    const mcpCall = async (args: string) => {
      await t.request
        .post('/mcp')
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        })
        .expect(200);
      return t.request
        .post('/mcp')
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', '2025-06-18')
        .send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_site_key","arguments":${args}}}`);
    };

    it('MCP: a message nested 5,000 levels deep is a JSON-RPC Invalid Request, not a 500', async () => {
      const res = await mcpCall(`{"id":"${siteId}","kind":"secret","idempotencyKey":"deep-args","x":${deep(5_000)}}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: -32600 });
      expect(res.body.error.message).toMatch(/nested more than 48 levels/);
    });

    it('MCP: tool arguments nested 40 levels deep are an isError result naming the field', async () => {
      const res = await mcpCall(`{"id":"${siteId}","kind":"secret","idempotencyKey":"deep-args-2","x":${deep(40)}}`);
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBe(true);
      expect(res.body.result.structuredContent).toMatchObject({ status: 400, field: 'x' });
    });

    it('nesting a real request needs (a stats batch with filters) still passes', async () => {
      const res = await t.request
        .post(`/v1/sites/${siteId}/stats/batch`)
        .set('Authorization', auth)
        .send({ queries: { a: { metrics: 'pageviews', where: { country: 'DE' } } } });
      expect(res.status).toBe(200);
    });
  });

  describe('requests refused by the HTTP parser are problem+json too', () => {
    it('a URL past the 16 KB header limit is 431 problem+json', async () => {
      const res = await fetch(`${t.url}/v1/sites/${'x'.repeat(20_000)}`, { headers: { authorization: auth } });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const body = (await res.json()) as { status: number; title: string };
      expect(body).toMatchObject({ type: '/problems/too-large', code: 'too-large', status: 431 });
      expect(body.title).toMatch(/shorter URL/);
      await t.request.get('/healthz').expect(200);
    });

    it('a malformed request line is 400 problem+json', async () => {
      const url = new URL(t.url);
      const text = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(url.port), url.hostname, () =>
          socket.write('GET /v1/me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
        );
        let data = '';
        socket.on('data', (c) => {
          data += c.toString('utf8');
        });
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(text).toMatch(/content-type: application\/problem\+json/i);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({
        type: '/problems/validation',
        code: 'validation',
        status: 400,
      });
    });
  });

  describe('oversized bodies are 413 problem+json, and the connection stays usable', () => {
    /** Sends `size` bytes to `path` over one keep-alive socket, then a GET /healthz on the same socket. */
    async function bigThenSmall(path: string, size: number, headers: Record<string, string> = {}) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const url = new URL(t.url);
      const send = (method: string, p: string, body?: Buffer) =>
        new Promise<{ status: number; type: string; body: string; socket: unknown }>((resolve, reject) => {
          const req = http.request(
            {
              host: url.hostname,
              port: url.port,
              method,
              path: p,
              agent,
              headers: body ? { 'content-type': 'application/json', ...headers } : {},
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c) => chunks.push(c));
              res.on('end', () =>
                resolve({
                  status: res.statusCode ?? 0,
                  type: String(res.headers['content-type'] ?? ''),
                  body: Buffer.concat(chunks).toString('utf8'),
                  socket: req.socket,
                }),
              );
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      try {
        const big = await send('POST', path, Buffer.alloc(size, 0x61));
        const small = await send('GET', '/healthz');
        return { big, small };
      } finally {
        agent.destroy();
      }
    }

    for (const [face, path] of [
      ['REST', '/v1/auth/login'],
      ['tRPC', '/trpc/auth.login'],
      ['MCP', '/mcp'],
      ['collect', '/collect'],
    ] as const) {
      it(`${face}: a 5 MB body`, async () => {
        const { big, small } = await bigThenSmall(path, 5 * 1024 * 1024, face === 'MCP' ? { authorization: auth } : {});
        expect([big.status, big.type]).toEqual([413, 'application/problem+json']);
        expect(JSON.parse(big.body)).toMatchObject({ type: '/problems/too-large', code: 'too-large', title: /too large/ });
        expect(small.status).toBe(200);
      });
    }

    it('a declared 50 MB body is refused without being read, and the connection is closed', async () => {
      const res = await fetch(`${t.url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) },
        body: '{}',
      }).catch((e: unknown) => e);
      // Either the client reads the 413, or the server closed the socket before a byte more was sent.
      if (res instanceof Response) expect(res.status).toBe(413);
      await t.request.get('/healthz').expect(200);
    });
  });

  describe('login CSRF: a POST takes its input from the JSON body only', () => {
    it('a sign-in whose fields ride in the query string (a cross-site form) is refused and sets no cookie', async () => {
      const { email } = await createUser(t.deps);
      const res = await t.request.post(`/v1/auth/login?email=${encodeURIComponent(email)}&password=${GOOD_PASSWORD}`);
      expectProblem(res, 400, 'email');
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('a body field does not take a query parameter along', async () => {
      const res = await t.request.post(`/v1/sites?name=Other`).set('Authorization', auth).send({ name: 'Fine' });
      expectProblem(res, 400, 'name');
    });
  });

  describe('tRPC batches cannot multiply guesses', () => {
    it('a batch naming an auth procedure is refused before any of it runs', async () => {
      const { email } = await createUser(t.deps);
      const calls = Array.from({ length: 5 }, () => ({ json: { email, password: 'wrong-password-1' } }));
      const input = Object.fromEntries(calls.map((c, i) => [String(i), c]));
      const res = await t.request
        .post(`/trpc/${Array(5).fill('auth.login').join(',')}?batch=1`)
        .set('Content-Type', 'application/json')
        .send(input);
      expectProblem(res, 400);
      expect(res.body.title).toMatch(/auth\.login on its own/);
    });

    it('a batch written with %2C instead of commas is the same batch, refused the same way', async () => {
      const { email } = await createUser(t.deps);
      const res = await t.request
        .post('/trpc/auth.login%2Cauth.login?batch=1')
        .set('Content-Type', 'application/json')
        .send({ 0: { json: { email, password: 'wrong-password-1' } }, 1: { json: { email, password: 'wrong-password-2' } } });
      expectProblem(res, 400);
      expect(res.body.title).toMatch(/auth\.login on its own/);
      expectProblem(await t.request.post('/trpc/auth.login%E0%A4').set('Content-Type', 'application/json').send({}), 400);
    });

    it('a body that is not JSON is 400 naming the body, not 500', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await t.request.post('/trpc/auth.login').set('Content-Type', type).send('email=a@example.com');
        expect(res.status, type).toBe(400);
        expect(res.text).toContain('application/json');
      }
    });

    it(`a batch of more than ${TRPC_MAX_BATCH} calls is refused`, async () => {
      const n = TRPC_MAX_BATCH + 1;
      const { user, workspace } = await createUser(t.deps);
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), {}]))));
      const res = await t.request
        .get(`/trpc/${Array(n).fill('me.get').join(',')}?batch=1&input=${input}`)
        .set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(400);
      const res10 = await t.request
        .get(
          `/trpc/${Array(TRPC_MAX_BATCH).fill('me.get').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: TRPC_MAX_BATCH }, (_, i) => [String(i), {}]))))}`,
        )
        .set('Authorization', `Bearer ${token}`);
      expect(res10.status).toBe(200);
    });
  });

  // Each passed its field's pattern and reached PostgreSQL, which refused it: 500 (22008, 22007).
  describe('a day or instant of the right shape that is no real one is 400 naming the field, never 500', () => {
    it('an annotation day of year 0 and a cursor of month 13', async () => {
      const made = await t.request
        .post(`/v1/sites/${siteId}/annotations`)
        .set('Authorization', auth)
        .send({ day: '0000-01-01', text: 'x' });
      expectProblem(made, 400);
      expect(made.body.field).toBe('day');
      const listed = await t.request
        .get(`/v1/sites/${siteId}/annotations`)
        .query({ cursor: '2024-13-45_00000000-0000-4000-8000-000000000000' })
        .set('Authorization', auth);
      expectProblem(listed, 400);
      expect(listed.body.field).toBe('cursor');
    });

    it("an alert deliveries' cursor on the 30th of February", async () => {
      const alert = await t.request
        .post(`/v1/sites/${siteId}/alerts`)
        .set('Authorization', auth)
        .send({ kind: 'first_pageview', recipients: ['ops@example.com'] })
        .expect(201);
      const res = await t.request
        .get(`/v1/sites/${siteId}/alerts/${alert.body.alert.id}/deliveries`)
        .query({ cursor: '2024-02-30T00:00:00.000Z_00000000-0000-4000-8000-000000000000' })
        .set('Authorization', auth);
      expectProblem(res, 400);
      expect(res.body.field).toBe('cursor');
    });
  });
});
