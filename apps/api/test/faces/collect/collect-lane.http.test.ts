import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, pageReport } from '../../support/collect.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 lane-test';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 exchange over a raw socket. `target` is sent as written: a path reaches the collect lane,
 * while the absolute form of the same URL (`http://host/collect`) passes it by and is routed by Koa to
 * the same handler. So each request can be answered by both doors and the answers compared.
 */
function exchange(port: number, method: string, target: string, headers: Record<string, string>, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const head = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
    for (const [k, v] of Object.entries(headers)) head.push(`${k}: ${v}`);
    if (body || method === 'POST') head.push(`Content-Length: ${Buffer.byteLength(body)}`);
    // Not end(): a half-closed connection lets Node abort a request still being answered.
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [top = '', rest = ''] = text.split(/\r\n\r\n(.*)/s);
      const [statusLine = '', ...lines] = top.split('\r\n');
      const answerHeaders: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        answerHeaders[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers: answerHeaders, body: rest });
    });
  });
}

/** Requests written back to back on one keep-alive connection (HTTP/1.1 pipelining); the answers in order. */
function pipelined(port: number, requests: [string, string, Record<string, string>, string][]): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const wire = requests.map(([method, target, headers, body], i) => {
      const last = i === requests.length - 1;
      const head = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Connection: ${last ? 'close' : 'keep-alive'}`];
      for (const [k, v] of Object.entries(headers)) head.push(`${k}: ${v}`);
      head.push(`Content-Length: ${Buffer.byteLength(body)}`);
      return `${head.join('\r\n')}\r\n\r\n${body}`;
    });
    socket.write(wire.join(''));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      let text = Buffer.concat(chunks).toString('utf8');
      const answers: Answer[] = [];
      while (text.length) {
        const end = text.indexOf('\r\n\r\n');
        const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const i = line.indexOf(':');
          headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length) });
        text = text.slice(end + 4 + length);
      }
      resolve(answers);
    });
  });
}

describe('collect lane: page reports and edge batches answered before Koa', () => {
  let t: TestServer;
  let port: number;
  let site: CollectSite;

  beforeAll(async () => {
    t = await startTestServer();
    port = Number(new URL(t.url).port);
    site = await collectSite(t, 'lane.example');
  });
  afterAll(() => t.close());

  const report = (extra: Record<string, unknown> = {}) => JSON.stringify(pageReport(site, extra));
  const page = () => ({ 'Content-Type': 'text/plain', Origin: `https://${site.hostname}`, 'User-Agent': UA });
  const batch = () =>
    JSON.stringify({
      k: site.publicKey,
      records: [
        { at: Date.now(), method: 'GET', path: '/lane-edge', status: 200, ms: 3, ip: '198.51.100.7', ua: UA },
        { at: 'yesterday', method: 'GET', path: '/x', status: 200, ms: 3, ip: '198.51.100.7', ua: UA },
      ],
    });

  /** The requests a page and an edge send, the good and the refused: [name, method, path, headers, body]. */
  const requests = (): [string, string, string, Record<string, string>, string][] => [
    ['a pageview', 'POST', '/collect', page(), report()],
    ['a pageview with a query string on the path', 'POST', '/collect?v=1', page(), report()],
    ['a preflight', 'OPTIONS', '/collect', { Origin: `https://${site.hostname}`, 'Access-Control-Request-Method': 'POST' }, ''],
    ['a GET', 'GET', '/collect', {}, ''],
    ['a report under Global Privacy Control', 'POST', '/collect', { ...page(), 'Sec-GPC': '1' }, report()],
    ['a body that is not JSON', 'POST', '/collect', page(), '{"t":'],
    ['a report missing its page', 'POST', '/collect', page(), JSON.stringify({ t: 'pv', k: site.publicKey, id: 'x1' })],
    ['an unknown site key', 'POST', '/collect', page(), report({ k: `pk_${'z'.repeat(26)}` })],
    ['a page of another hostname', 'POST', '/collect', { ...page(), Origin: 'https://elsewhere.example' }, report()],
    ['a batch without a secret', 'POST', '/collect/requests', { 'Content-Type': 'application/json' }, batch()],
    [
      'a batch with one bad record',
      'POST',
      '/collect/requests',
      { 'Content-Type': 'application/json', 'x-svc-proxy': site.secret },
      batch(),
    ],
  ];

  it('gives the same answers as Koa did: status, headers and body', async () => {
    for (const [name, method, path, sent, body] of requests()) {
      // The same request id to both: each answer echoes it.
      const headers = { ...sent, 'X-Request-Id': 'lane-or-koa-1' };
      const lane = await exchange(port, method, path, headers, body);
      const koa = await exchange(port, method, `http://127.0.0.1:${port}${path}`, headers, body);
      const { date: _a, ...laneHeaders } = lane.headers;
      const { date: _b, ...koaHeaders } = koa.headers;
      expect({ name, status: lane.status, headers: laneHeaders, body: lane.body }).toEqual({
        name,
        status: koa.status,
        headers: koaHeaders,
        body: koa.body,
      });
    }
  });

  it('answers a page and an edge as they expect, and stores what it accepted', async () => {
    const accepted = await exchange(port, 'POST', '/collect', page(), report({ u: `https://${site.hostname}/lane-stored` }));
    expect(accepted).toMatchObject({ status: 202, body: '' });
    expect(accepted.headers).toMatchObject({
      'access-control-allow-origin': '*',
      vary: 'Origin',
      'content-type': 'text/plain; charset=utf-8',
      'content-length': '0',
    });
    const refused = await exchange(port, 'POST', '/collect', page(), '{"t":');
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(refused.body)).toMatchObject({ status: 400, field: '(body)' });
    const notAllowed = await exchange(port, 'GET', '/collect', {}, '');
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(notAllowed.body)).toMatchObject({
      status: 405,
      code: 'validation',
      title: 'Use POST or OPTIONS for this path',
    });
    expect(notAllowed.headers.allow).toBe('POST, OPTIONS');
    const edge = await exchange(
      port,
      'POST',
      '/collect/requests',
      { 'Content-Type': 'application/json', 'x-svc-proxy': site.secret },
      batch(),
    );
    expect(edge.status).toBe(202);
    expect(edge.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(edge.body)).toMatchObject({ accepted: 1, refused: 1, examples: [{ field: 'records[1].at' }] });

    await t.deps.ingest.flushNow();
    const stored = (await t.deps.orm.em
      .fork()
      .execute(`select path from pageviews where site_id = ? and path = '/lane-stored'`, [site.siteId])) as unknown[];
    expect(stored).toHaveLength(1);
    const edgeRows = (await t.deps.orm.em
      .fork()
      .execute(`select path from requests where site_id = ? and path = '/lane-edge'`, [site.siteId])) as unknown[];
    expect(edgeRows.length).toBeGreaterThanOrEqual(1);
  });

  it('answers requests arriving together each with its own answer, and stores every accepted one', async () => {
    // Answers are written together at the end of the event loop's turn: many at once must not mix them up.
    const all = requests();
    const alone: Answer[] = [];
    for (const [, method, path, headers, body] of all) alone.push(await exchange(port, method, path, headers, body));
    const paths = Array.from({ length: 24 }, (_, i) => `/together-${i}`);
    const together = await Promise.all([
      ...all.map(([, method, path, headers, body]) => exchange(port, method, path, headers, body)),
      ...paths.map((p) => exchange(port, 'POST', '/collect', page(), report({ u: `https://${site.hostname}${p}` }))),
    ]);
    all.forEach(([name], i) => {
      expect({ name, status: together[i]?.status, body: together[i]?.body }).toEqual({
        name,
        status: alone[i]?.status,
        body: alone[i]?.body,
      });
    });
    expect(together.slice(all.length).map((a) => a.status)).toEqual(paths.map(() => 202));

    // Pipelined on one connection: the answers come back in the order of the requests.
    const inOrder = await pipelined(port, [
      ['POST', '/collect', page(), report({ u: `https://${site.hostname}/piped-1` })],
      ['POST', '/collect', page(), '{"t":'],
      ['OPTIONS', '/collect', { Origin: `https://${site.hostname}` }, ''],
      ['POST', '/collect', page(), report({ u: `https://${site.hostname}/piped-2` })],
    ]);
    expect(inOrder.map((a) => a.status)).toEqual([202, 400, 204, 202]);
    expect(JSON.parse(inOrder[1]?.body ?? '{}')).toMatchObject({ status: 400, field: '(body)' });

    await t.deps.ingest.flushNow();
    const stored = (await t.deps.orm.em
      .fork()
      .execute(`select path from pageviews where site_id = ? and (path like '/together-%' or path like '/piped-%')`, [
        site.siteId,
      ])) as { path: string }[];
    expect(stored.map((r) => r.path).sort()).toEqual([...paths, '/piped-1', '/piped-2'].sort());
  });

  it('survives a client that leaves in the middle of its body, and answers the next one', async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        // "100 Continue" comes back once the server handles the request: the client leaves while it reads the body.
        const head = `POST /collect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 900\r\nExpect: 100-continue\r\n\r\n`;
        socket.write(`${head}{"t":"pv","k":"`);
      });
      socket.once('data', () => socket.destroy());
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    expect((await exchange(port, 'POST', '/collect', page(), report())).status).toBe(202);
  });

  it('leaves the collect routes to Koa while the node drains: 503, and the connection closes', async () => {
    t.deps.lifecycle.draining = true;
    try {
      const answer = await exchange(port, 'POST', '/collect', page(), report());
      expect(answer.status).toBe(503);
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(answer.headers.connection).toBe('close');
      expect(answer.headers['retry-after']).toBe('1');
    } finally {
      t.deps.lifecycle.draining = false;
    }
  });
});
