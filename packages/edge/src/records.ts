/**
 * Request records and their batching, one module for both senders: the edge worker (`withUnseen`) and proxy
 * mode on Node servers (`protect()` and its middleware). Records wait in one queue per (collect URL, site key,
 * secret) in the isolate or process and go to `POST {collectUrl}/requests` when `batchSize` are queued or the
 * oldest is older than `flushAfterMs`. A send never throws: a failed one is retried once (network error, 5xx,
 * 408, 429), then dropped. Dependency-free.
 */
/**
 * One request as the SDK reports it: the `RequestRecord` of the service's collect schema
 * (`packages/shared/src/schemas/collect.ts`), written out here so the published declarations need nothing
 * else (`test/record-shape.ts` keeps the two the same). Strings are cut to the schema's limits before sending.
 */
export interface RequestRecord {
  /** Epoch milliseconds when the request arrived. */
  at: number;
  method: string;
  /** Request path (no query string). */
  path: string;
  status: number;
  /** Edge cache status (HIT, MISS, DYNAMIC, ...) when known. */
  cache?: string;
  /** Milliseconds until the response (the gate, then the handler or origin). */
  ms: number;
  /** Client address, used by the service in memory only (never stored). */
  ip?: string;
  /** Full user agent, used by the service in memory only (never stored). */
  ua?: string;
  /** Two-letter country code. */
  country?: string;
  asn?: number;
  asOrg?: string;
  /** The edge platform's own verdict on a crawler (e.g. Cloudflare's verified bots). */
  verifiedBot?: boolean;
  botScore?: number;
  /** TLS protocol version, e.g. `TLSv1.3`. */
  tls?: string;
  /** Coarse TLS class (`tls1.3`, `tls1.2`, `tls1.2-legacy`, `tls-old`, `none`). */
  tlsClass?: string;
  /** The response was an HTML document. */
  html?: boolean;
  /** What the gate decided. */
  action?: 'allow' | 'challenge' | 'deny';
  /** Why (`decide`'s reason, or `off: …` / `fail open: …`), at most 256 characters. */
  reason?: string;
  /** 0-100 for a browser, -1 for a declared bot; absent when nothing was judged. */
  risk?: number;
  /** Only on a challenge whose hostname a check cannot return to: that hostname (a setup problem of the site). */
  noReturnHost?: string;
}

/** A batch as sent to `POST {collectUrl}/requests` (with the site's secret in `x-svc-proxy`). */
export interface RequestBatch {
  /** The site's public key `pk_…`. */
  k: string;
  records: RequestRecord[];
}

export const DEFAULT_COLLECT_URL = 'https://collect.unseen.example/collect';

/** Records a batch holds at most (the service refuses more). */
export const MAX_BATCH = 500;
/** Records a queue holds at most while sends fail: the oldest are dropped first. */
const MAX_QUEUED = MAX_BATCH * 4;

/** Where a queue's records go. */
export interface BatchTarget {
  collectUrl: string;
  /** The site's public key `pk_…`. */
  key: string;
  /** The site's server secret `sk_live_…`. */
  secret: string;
}

/** When a queue sends. */
export interface BatchTiming {
  /** Send when this many records are queued (1-500). */
  batchSize: number;
  /** Send when the oldest queued record is older than this (ms). */
  flushAfterMs: number;
}

/** The timing asked for, within bounds (defaults: 20 records, 2000 ms). */
export function batchTiming(options: { batchSize?: number; flushAfterMs?: number }): BatchTiming {
  return {
    batchSize: Math.min(MAX_BATCH, Math.max(1, Math.floor(options.batchSize ?? 20))),
    flushAfterMs: Math.max(0, options.flushAfterMs ?? 2000),
  };
}

interface Queue {
  target: BatchTarget;
  timing: BatchTiming;
  records: RequestRecord[];
  /** Batches sent and not yet answered. */
  inFlight: number;
  /**
   * Node only: at most MAX_IN_FLIGHT of them. A worker's sends belong to the request that started them, and one
   * the platform cancels may never settle: counted, it would hold the isolate's queue for good.
   */
  bounded: boolean;
  /** Node only (`bounded`): the sends on their way, which a flush waits for too. */
  sending: Set<Promise<void>>;
  /** `at` of the oldest queued record. */
  oldest: number;
  /** Node only: sends what has grown old without waiting for another request. */
  timer?: ReturnType<typeof setTimeout>;
}

const queues = new Map<string, Queue>();

/** `value` cut to `max` characters; undefined for nothing. */
export function cut(value: string | null | undefined, max: number): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  return value.length > max ? value.slice(0, max) : value;
}

export function joinUrl(base: string, suffix: string): string {
  return base.replace(/\/+$/, '') + suffix;
}

async function send(target: BatchTarget, records: RequestRecord[]): Promise<void> {
  // The batch's id, the same on the retry below: a batch whose answer was lost (or came past the timeout) is stored and
  // counted once by the service. (Node before 19 has no global crypto: such a batch goes without one, as before.)
  const b = globalThis.crypto?.randomUUID?.();
  const body = JSON.stringify({ k: target.key, ...(b ? { b } : {}), records } satisfies RequestBatch);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const res = await fetch(joinUrl(target.collectUrl, '/requests'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-proxy': target.secret },
        body,
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      // Drain the body so the connection can be reused.
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return;
      // Too large for the service's body limit (long paths and user agents): each half on its own.
      if (res.status === 413 && records.length > 1) {
        const half = Math.ceil(records.length / 2);
        await send(target, records.slice(0, half));
        await send(target, records.slice(half));
        return;
      }
      // A refused batch (400/401/403/413) will be refused again; only retry what may pass later.
      if (res.status < 500 && res.status !== 429 && res.status !== 408) break;
    } catch {
      // network failure: retry once
    }
  }
  console.warn(`unseen: dropped a batch of ${records.length} request records`);
}

/**
 * A batch's send gives up after this long: a service that takes connections but answers slowly held every send
 * for undici's 300 s, each holding its records.
 */
const SEND_TIMEOUT_MS = 10_000;
/**
 * Batches of one Node queue sent at once; the others wait queued (within MAX_QUEUED). Without it every full batch
 * started another send to a slow service, and the records in flight grew with the request rate.
 */
export const MAX_IN_FLIGHT = 4;

const full = (queue: Queue) => queue.bounded && queue.inFlight >= MAX_IN_FLIGHT;

/** Sends the queued records: those due at `now`, or all of them (a flush, whatever is in flight); never rejects. */
function sendQueued(queue: Queue, now: number, all: boolean): Promise<void> | undefined {
  const { batchSize, flushAfterMs } = queue.timing;
  const sends: Promise<void>[] = [];
  while (
    queue.records.length > 0 &&
    (all || (!full(queue) && (queue.records.length >= batchSize || now - queue.oldest >= flushAfterMs)))
  ) {
    const records = queue.records.splice(0, all ? MAX_BATCH : batchSize);
    queue.oldest = queue.records[0]?.at ?? now;
    queue.inFlight += 1;
    const sent: Promise<void> = send(queue.target, records).finally(() => {
      queue.inFlight -= 1;
      queue.sending.delete(sent);
      if (!queue.bounded) return;
      void sendQueued(queue, Date.now(), false);
      arm(queue);
    });
    if (queue.bounded) queue.sending.add(sent);
    sends.push(sent);
  }
  if (sends.length === 0) return undefined;
  return Promise.all(sends).then(
    () => undefined,
    () => undefined,
  );
}

/** Node: a timer (unref'd, so it never keeps the process alive) for when the oldest record falls due. */
function arm(queue: Queue): void {
  // All sends taken: the first to end sends what is due and arms again (a timer now would spin).
  if (queue.timer !== undefined || queue.records.length === 0 || full(queue)) return;
  const wait = Math.max(0, queue.oldest + queue.timing.flushAfterMs - Date.now());
  const timer = setTimeout(() => {
    queue.timer = undefined;
    void sendQueued(queue, Date.now(), false);
    arm(queue);
  }, wait);
  (timer as { unref?: () => void }).unref?.();
  queue.timer = timer;
}

/**
 * Queues one record for `target` and answers the sends that fell due (the worker hands them to
 * `ctx.waitUntil`); undefined when nothing is due. With `timer` (Node), records that grow old are sent by a
 * timer too; in a worker a later request sends them (timers do not outlive a request there).
 */
export function enqueueRecord(
  target: BatchTarget,
  record: RequestRecord,
  timing: BatchTiming,
  options: { timer?: boolean } = {},
): Promise<void> | undefined {
  const id = `${target.collectUrl}\n${target.key}\n${target.secret}`;
  let queue = queues.get(id);
  if (!queue) {
    queue = {
      target,
      timing,
      records: [],
      oldest: record.at,
      inFlight: 0,
      sending: new Set(),
      bounded: options.timer === true,
    };
    queues.set(id, queue);
  }
  queue.timing = timing;
  if (queue.records.length === 0) queue.oldest = record.at;
  queue.records.push(record);
  // Bound memory if sends keep failing or the isolate is busy.
  if (queue.records.length > MAX_QUEUED) queue.records.splice(0, queue.records.length - MAX_QUEUED);
  const due = sendQueued(queue, Date.now(), false);
  if (options.timer) arm(queue);
  return due;
}

/**
 * Sends every queued record now (a server shutting down); resolves when these sends and those already on their
 * way are done (a timer's batch was cut by the `process.exit` after the flush), never rejects.
 */
export async function flushRecords(): Promise<void> {
  const sends: Promise<void>[] = [];
  for (const queue of queues.values()) {
    if (queue.timer !== undefined) clearTimeout(queue.timer);
    queue.timer = undefined;
    sends.push(...queue.sending);
    const due = sendQueued(queue, Date.now(), true);
    if (due) sends.push(due);
  }
  await Promise.allSettled(sends);
}
