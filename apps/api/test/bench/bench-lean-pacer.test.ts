// The bench's lean pacer is a measuring instrument: it must send exactly the scheduled requests, read every
// kind of answer a server gives (a sized body, a chunked one, a body split over packets, a closed
// connection), count refusals as errors and time each request from its scheduled start.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runPacedLean } from '../../bench/lean-pacer.ts';
import { type LoadResult, splitByWindows } from '../../bench/load.ts';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the lean pacer', () => {
  it('sends rate × seconds requests with their body and reads sized, chunked and split answers', async () => {
    const bodies: string[] = [];
    let n = 0;
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        bodies.push(body);
        const kind = n++ % 3;
        if (kind === 0) res.end('{"ok":true}');
        else if (kind === 1) {
          res.write('first part,');
          setTimeout(() => res.end('second part'), 2);
        } else {
          res.writeHead(202, { 'content-length': '10' });
          res.write('12345');
          setTimeout(() => res.end('67890'), 2);
        }
      });
    });
    const r = await runPacedLean(
      url,
      { method: 'POST', path: '/collect', body: '{"u":"https://a.example/"}' },
      { rate: 200, seconds: 0.5 },
    );
    expect(r.requests).toBe(100);
    expect(r.errors).toBe(0);
    expect(bodies).toHaveLength(100);
    expect(new Set(bodies)).toEqual(new Set(['{"u":"https://a.example/"}']));
  });

  it('counts answers of 400 and above, and connections the server closes, as errors, and goes on on new ones', async () => {
    let n = 0;
    const url = await serve((_req, res) => {
      const kind = n++ % 4;
      if (kind === 0) {
        res.writeHead(503).end('busy');
      } else if (kind === 1) {
        res.socket?.destroy();
      } else res.writeHead(204).end();
    });
    // Two sockets at most: every closed one is replaced, or the requests waiting for a socket would never go.
    const r = await runPacedLean(url, { method: 'GET', path: '/' }, { rate: 200, seconds: 0.4, maxSockets: 2 });
    expect(r.requests + r.errors).toBe(80);
    expect(r.errors).toBe(40);
  });

  it('times each request from when it was due, so a slow server shows in the latencies', async () => {
    const url = await serve((_req, res) => {
      setTimeout(() => res.end('late'), 40);
    });
    const r = await runPacedLean(url, { method: 'GET', path: '/' }, { rate: 100, seconds: 0.3 });
    expect(r.requests).toBe(30);
    expect(r.p50).toBeGreaterThanOrEqual(40);
  });

  it('keeps when each answered request was due, so those due while the server was slow can be told apart', async () => {
    // The server is slow for a stretch in the middle of the load; the requests due in that stretch show it.
    let slowSince = Number.POSITIVE_INFINITY;
    let slowUntil = Number.POSITIVE_INFINITY;
    const url = await serve((_req, res) => {
      const now = performance.now();
      if (now >= slowSince && now <= slowUntil) setTimeout(() => res.end('late'), 40);
      else res.end('ok');
    });
    const slow = new Promise<void>((done) =>
      setTimeout(() => {
        slowSince = performance.now();
        setTimeout(() => {
          slowUntil = performance.now();
          done();
        }, 150);
      }, 200),
    );
    const r = await runPacedLean(url, { method: 'GET', path: '/' }, { rate: 100, seconds: 0.6 });
    await slow;
    expect(r.timeline?.scheduled).toHaveLength(r.requests);
    expect(r.timeline?.latency).toHaveLength(r.requests);
    // Inside: the requests due from the stretch's start to 45 ms before its end. Each reaches the server within
    // the stretch, or was sent so late that its latency, counted from when it was due, is as long anyway.
    const split = splitByWindows([r], [[slowSince, slowUntil - 45]]);
    expect(split.inside.requests).toBeGreaterThan(0);
    expect(split.inside.requests + split.outside.requests).toBe(r.requests);
    expect(split.inside.p99).toBeGreaterThanOrEqual(40);
  });
});

describe('splitting a load by windows of time', () => {
  const run = (scheduled: number[], latency: number[]): LoadResult => ({
    requests: scheduled.length,
    errors: 0,
    rps: 0,
    p50: 0,
    p99: 0,
    latencies: [...latency].sort((a, b) => a - b),
    seconds: 1,
    timeline: { scheduled: Float64Array.from(scheduled), latency: Float64Array.from(latency) },
  });

  it('counts a request due at either end of a window as inside it, across runs', () => {
    const split = splitByWindows(
      [run([0, 1, 2, 3, 4], [1, 1, 50, 60, 2]), run([10, 11, 12], [3, 70, 4])],
      [
        [2, 3],
        [11, 11],
      ],
    );
    expect(split.inside).toEqual({ requests: 3, p99: 70 });
    expect(split.outside).toEqual({ requests: 5, p99: 4 });
  });

  it('refuses a load that kept no timeline, rather than putting every request outside', () => {
    const { timeline: _, ...bare } = run([0], [1]);
    expect(() => splitByWindows([bare], [[0, 1]])).toThrow(/timeline/);
  });
});
