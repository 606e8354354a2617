import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectSite } from '../support/collect.ts';
import { spawnServer, storedCounts, streamReports, tally, waitFor, waitWhileStreaming } from '../support/faults.ts';
import { ownServerSuite } from '../support/own-server.ts';

/**
 * Issue 8, "test it by stopping the real thing": the real server process (`main.ts`) gets SIGTERM
 * while page reports stream in. It answers what is in flight, turns new requests away with 503 and
 * Retry-After, stores what it acknowledged in its last flush and exits 0.
 *
 * It runs on a database of its own on the suite's PostgreSQL server: a real server runs the rollup,
 * retention and partition-drop jobs over every site at start-up, which must not touch other suites' data.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

describe('fault: SIGTERM during load', () => {
  const own = ownServerSuite('fault-sigterm', (t) => collectSite(t, 'fault-sigterm.example'));

  it('answers 202 or 503 problem+json after the signal, stores every 202 and exits 0', async () => {
    const site = own.made;
    const server = await spawnServer({
      NODE_ENV: 'production',
      DATABASE_URL: own.db.url,
      DATA_DIR: own.dataDir,
      LOG_LEVEL: 'info',
      ...NO_BUDGETS,
    });
    own.server = server;
    const url = server.url;
    const stream = streamReports({ baseUrl: () => url, site, loops: 6, untilRefused: true });
    await waitWhileStreaming(stream, () => expect(stream.log.acked.length).toBeGreaterThan(20));
    // A report still arriving when the signal comes (half its body sent), on a connection of its own.
    const slow = slowReport(url, site);
    await slow.started;
    const signalled = Date.now();
    server.proc.kill('SIGTERM');
    // The server drains once the stream meets it: a report turned away (503) or refused.
    await waitWhileStreaming(stream, () =>
      expect(stream.log.answers.some((a) => a.at >= signalled && a.status !== 202)).toBe(true),
    );
    // The rest of its body, then a second request on the same connection: the first is in flight and
    // is answered (202, and stored); the second arrives while draining and is turned away.
    const [inFlight, arrivedLate] = await slow.finish();
    expect(inFlight).toMatchObject({ status: 202 });
    expect(arrivedLate).toMatchObject({ status: 503, type: expect.stringMatching(/^application\/problem\+json/) });
    expect(Number(arrivedLate?.headers['retry-after'])).toBeGreaterThan(0);
    expect(arrivedLate?.headers.connection).toBe('close');
    const exit = await server.exited;
    // Every loop ends once connections are refused (the process is gone).
    const ended = await Promise.race([stream.done.then(() => true), sleep(15_000).then(() => false)]);
    const log = await stream.stop();
    const output = server.output();

    expect(exit, output).toEqual({ code: 0, signal: null });
    // Started as npm start starts it: with the API's V8 flags (node-flags.json), so no warning of their absence.
    expect(output).not.toContain('started without');
    expect(ended).toBe(true);
    expect(log.violations).toEqual([]);
    const before = tally(log, 0, signalled);
    expect(Object.keys(before)).toEqual(['202']);
    expect(before['202']).toBeGreaterThan(20);
    // After the signal: 202 (in flight, or before the listener closed), 503 (draining), or no answer
    // at all (refused once closed, or a keep-alive connection closed as the request went out).
    const after = tally(log, signalled);
    if (process.env.FAULT_DEBUG) console.log({ before, after, acked: log.acked.length }, output);
    for (const answer of Object.keys(after)) expect(answer).toMatch(/^(202|503|no answer \(.+\))$/);
    expect(Object.keys(after).some((a) => a.includes('ECONNREFUSED'))).toBe(true);

    const stored = await storedCounts(own.orm, site.siteId);
    expect(log.acked.filter((id) => !stored.has(id))).toEqual([]);
    expect(stored.get(slow.id)).toBe(1);
    expect([...stored.values()].filter((n) => n !== 1)).toEqual([]);
    // PostgreSQL was there all along: the last flush stored everything, nothing was saved to disk.
    expect(readdirSafe(path.join(own.dataDir, 'ingest-spill'))).toEqual([]);
    expect(output).toMatch(/listening on/);
    // Production logs JSON lines: no line at level error (nor a readable one).
    expect(output).not.toMatch(/"level":"error"|\bERROR\b/);
  });
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

interface RawAnswer {
  status: number;
  type: string;
  headers: Record<string, string>;
}

/**
 * A page report sent by hand on its own connection: headers and part of the body now (`started` once the
 * server handles it), the rest
 * with a second report right behind it on `finish()`, which resolves with both answers once the server
 * closes the connection.
 */
function slowReport(baseUrl: string, site: { publicKey: string; hostname: string }) {
  const { hostname, port } = new URL(baseUrl);
  const id = `slow${randomBytes(6).toString('hex')}`;
  const report = (rid: string) =>
    JSON.stringify({
      t: 'pv',
      k: site.publicKey,
      u: `https://${site.hostname}/slow`,
      id: rid,
      r: '',
      w: 1,
      l: 'en',
      z: 'UTC',
      n: 1,
    });
  const head = (body: string, extra = '') =>
    `POST /collect HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: text/plain\r\nUser-Agent: Mozilla/5.0 Firefox/140.0\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n`;
  const first = report(id);
  const second = report(`late${randomBytes(6).toString('hex')}`);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.on('data', (d) => {
    received += d.toString();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  // "100 Continue" comes back once the server has read the headers and started handling the request
  // (Node writes it just before handing the request over): from then on it is in flight.
  socket.once('connect', () => socket.write(head(first, 'Expect: 100-continue\r\n') + first.slice(0, 20)));
  const started = waitFor(() => received.includes('100 Continue'), 10_000).then((ok) => {
    if (!ok) throw new Error('the server did not start reading the slow report');
  });
  return {
    id,
    started,
    async finish(): Promise<RawAnswer[]> {
      socket.write(first.slice(20) + head(second) + second);
      await Promise.race([closed, sleep(10_000)]);
      socket.destroy();
      return received
        .split(/(?=HTTP\/1\.1 )/)
        .filter(Boolean)
        .map((text) => {
          const [top = '', ...lines] = text.split('\r\n\r\n')[0]?.split('\r\n') ?? [];
          const headers = Object.fromEntries(
            lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
          );
          return { status: Number(top.split(' ')[1]), type: headers['content-type'] ?? '', headers };
        })
        .filter((a) => a.status !== 100);
    },
  };
}
