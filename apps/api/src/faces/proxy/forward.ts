import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { Agent } from 'undici';
import type { Logger } from '../../core/logger.ts';
import { type Forwarded, originRequestHeaders, visitorResponseHeaders } from './headers.ts';
import type { ProxyLimits } from './limits.ts';

/** The connections to every origin of this node, with the connect, headers and body-idle timeouts. */
export function originAgent(limits: ProxyLimits): Agent {
  return new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyIdleTimeoutMs,
    keepAliveTimeout: limits.keepAliveMs,
  });
}

export type Forwarding =
  /** The origin answered: its status went to the visitor and its body is on its way. */
  | { kind: 'answered'; status: number; html: boolean }
  /** No answer from the origin: nothing was written to the visitor yet. */
  | { kind: 'failed'; timeout: boolean; error: unknown }
  /** The visitor went away before the origin answered. */
  | { kind: 'left' };

const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);

/** A request with a body to pass on (a GET or HEAD normally has none, but may). */
const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

/**
 * Sends the request to the origin and its answer to the visitor, both bodies streamed: the request body
 * as it arrives, the origin's answer as it comes (redirects are passed on, never followed). Resolves once
 * the origin's status and headers are written (or it failed, or the visitor left); the body goes on in the
 * background and a failure midway cuts the visitor's connection (the status is out already).
 */
export async function forward(
  agent: Agent,
  req: IncomingMessage,
  res: ServerResponse,
  to: { origin: string; path: string; visitorBase: string; forwarded: Forwarded },
  logger: Logger,
): Promise<Forwarding> {
  const left = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) left.abort();
  };
  res.once('close', onClose);
  let answer: Awaited<ReturnType<Agent['request']>>;
  try {
    answer = await agent.request({
      origin: to.origin,
      path: to.path,
      method: req.method ?? 'GET',
      headers: originRequestHeaders(req.headers, to.forwarded),
      body: hasBody(req) ? req : null,
      signal: left.signal,
    });
  } catch (error) {
    res.off('close', onClose);
    if (left.signal.aborted) return { kind: 'left' };
    const code = (error as { code?: string }).code ?? '';
    return { kind: 'failed', timeout: TIMEOUTS.has(code), error };
  }
  const status = answer.statusCode;
  try {
    res.writeHead(status, visitorResponseHeaders(answer.headers, { origin: to.origin, visitorBase: to.visitorBase }));
  } catch (error) {
    // A header Node refuses to send (a character no header may hold): nothing written yet.
    answer.body.destroy();
    res.off('close', onClose);
    return { kind: 'failed', timeout: false, error };
  }
  pipeline(answer.body, res, (err) => {
    res.off('close', onClose);
    if (err && !left.signal.aborted) logger.debug(`proxy: an answer from ${to.origin} was cut off (${String(err)})`);
  });
  const type = answer.headers['content-type'];
  return { kind: 'answered', status, html: typeof type === 'string' && /^text\/html\b/i.test(type) };
}
