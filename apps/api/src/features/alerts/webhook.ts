// An alert's webhook: a POST of JSON signed like Stripe's, `X-Unseen-Signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<body>" with the rule's secret>` (docs/product/alerts.md shows how to check it).
// Only to a public address (core/security/outbound-url.ts, checked again at connect time), 5 seconds a
// try, at most 1 KB of the answer read, 3 tries with a growing pause; the caller never waits on it for mail.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { publicLookup } from '../../core/security/outbound-url.ts';

export const WEBHOOK_TIMEOUT_MS = 5000;
export const WEBHOOK_TRIES = 3;
/** The most of an answer read: only its status matters. */
const ANSWER_BYTES = 1024;

export const signatureOf = (secret: string, unixSeconds: number, body: string) =>
  `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;

/** One POST: the status answered, or null when nothing answered in time (or the address was refused). */
export function postOnce(
  url: string,
  body: string,
  secret: string,
  allowLoopback: boolean,
  now = new Date(),
): Promise<number | null> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup: publicLookup(allowLoopback) as never,
        timeout: WEBHOOK_TIMEOUT_MS,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'UnseenStats-Alerts/1',
          'x-unseen-signature': signatureOf(secret, Math.floor(now.getTime() / 1000), body),
        },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_BYTES) res.destroy();
        });
        res.on('close', () => resolve(res.statusCode ?? null));
        res.on('error', () => resolve(res.statusCode ?? null));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

/** Up to WEBHOOK_TRIES POSTs until one is answered 2xx, pausing 1 s, then 2 s, between them. */
export async function postWithRetries(
  url: string,
  body: string,
  secret: string,
  opts: { allowLoopback: boolean; sleep: (ms: number) => Promise<void> },
): Promise<{ ok: boolean; status: number | null }> {
  let status: number | null = null;
  for (let attempt = 0; attempt < WEBHOOK_TRIES; attempt++) {
    if (attempt > 0) await opts.sleep(1000 * 2 ** (attempt - 1));
    status = await postOnce(url, body, secret, opts.allowLoopback);
    if (status !== null && status >= 200 && status < 300) return { ok: true, status };
  }
  return { ok: false, status };
}
