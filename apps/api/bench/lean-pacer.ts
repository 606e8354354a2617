import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { type LoadRequest, type LoadResult, summarise } from './load.ts';

/**
 * Open-loop load like `runPaced`, sent over raw keep-alive sockets with one request's bytes built once
 * and answers read by a small HTTP/1.1 parser: far less of the generator's CPU a request than Node's http
 * client (docs/performance/history.md, "A lean pacer, and the flush prepared a slice at a time") and almost no
 * garbage, so on a two-core machine the generator neither
 * takes the server's core nor pauses to collect its own heap (both showed in the tail as the server's
 * latency). Each request is timed from its scheduled start, as in `runPaced`, and both are kept (`timeline`).
 */
export async function runPacedLean(
  baseUrl: string,
  req: LoadRequest,
  opts: { rate: number; seconds: number; maxSockets?: number },
): Promise<LoadResult> {
  const url = new URL(baseUrl);
  const bytes = requestBytes(url, req);
  const total = Math.round(opts.rate * opts.seconds);
  const maxSockets = opts.maxSockets ?? 256;
  const latencies = new Float64Array(total);
  const scheduledAt = new Float64Array(total);
  let answered = 0;
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  let settled = 0;
  const idle: Connection[] = [];
  const all = new Set<Connection>();
  /** Scheduled starts of requests that found every socket busy, oldest first. */
  const waiting: number[] = [];
  let waitingHead = 0;
  let finish: () => void = () => {};
  const done = new Promise<void>((r) => {
    finish = r;
  });
  const settle = (scheduled: number, error: string | null) => {
    if (error === null) {
      scheduledAt[answered] = scheduled;
      latencies[answered++] = performance.now() - scheduled;
    } else {
      errors++;
      errorKinds[error] = (errorKinds[error] ?? 0) + 1;
    }
    if (++settled === total) finish();
  };
  const next = (c: Connection) => {
    if (waitingHead < waiting.length) c.send(waiting[waitingHead++] as number);
    else idle.push(c);
  };
  const closed = (c: Connection) => {
    all.delete(c);
    // A request that waited for a socket takes the closed one's place.
    if (waitingHead < waiting.length) dispatch(waiting[waitingHead++] as number);
  };
  const dispatch = (scheduled: number) => {
    let c = idle.pop();
    while (c?.closed) c = idle.pop();
    if (c) c.send(scheduled);
    else if (all.size < maxSockets) {
      const fresh = new Connection(url, bytes, settle, next, closed);
      all.add(fresh);
      fresh.send(scheduled);
    } else waiting.push(scheduled);
  };

  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    while (sent < total && started + (sent * 1000) / opts.rate <= now) {
      dispatch(started + (sent * 1000) / opts.rate);
      sent++;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  for (const c of all) c.close();
  return {
    ...summarise([...latencies.subarray(0, answered)], errors, seconds, errorKinds),
    timeline: { scheduled: scheduledAt.subarray(0, answered), latency: latencies.subarray(0, answered) },
  };
}

function requestBytes(url: URL, req: LoadRequest): Buffer {
  const body = req.body ? Buffer.from(req.body) : null;
  const headers: Record<string, string> = { host: url.host, connection: 'keep-alive', ...req.headers };
  if (body) headers['content-length'] = String(body.length);
  const head = `${req.method} ${req.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** One keep-alive socket carrying one request at a time; answers with a body of `Content-Length` bytes or chunked. */
class Connection {
  private readonly socket: net.Socket;
  private scheduled = 0;
  private pending: Buffer | null = null;
  /** The server closed it (e.g. after its keep-alive timeout): never used again. */
  closed = false;

  constructor(
    url: URL,
    private readonly bytes: Buffer,
    /** Settles a request: `error` null, or what went wrong ('status 503', 'closed before an answer'). */
    private readonly settle: (scheduled: number, error: string | null) => void,
    private readonly next: (c: Connection) => void,
    private readonly onClosed: (c: Connection) => void,
  ) {
    this.socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (e: NodeJS.ErrnoException) => this.fail(`socket ${e.code ?? 'error'}`));
    this.socket.on('close', () => {
      this.closed = true;
      this.fail('closed before an answer');
      this.onClosed(this);
    });
  }

  send(scheduled: number) {
    this.scheduled = scheduled;
    this.socket.write(this.bytes);
  }

  close() {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }

  private fail(why: string) {
    if (this.scheduled) this.settle(this.scheduled, why);
    this.scheduled = 0;
  }

  private read(chunk: Buffer) {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = data.indexOf(HEAD_END);
    if (end < 0) {
      this.pending = data;
      return;
    }
    const head = data.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const bodyStart = end + 4;
    const complete = length
      ? data.length >= bodyStart + Number(length[1])
      : !/\r\ntransfer-encoding: *chunked/i.test(head) || data.indexOf('0\r\n\r\n', bodyStart) >= 0;
    if (!complete) {
      this.pending = data;
      return;
    }
    this.pending = null;
    const scheduled = this.scheduled;
    this.scheduled = 0;
    this.settle(scheduled, status > 0 && status < 400 ? null : `status ${status || '?'}`);
    this.next(this);
  }
}
