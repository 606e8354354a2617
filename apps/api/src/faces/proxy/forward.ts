import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { Logger } from '../../core/logger.ts';
import { isAllowedAddress, publicLookup } from '../../core/security/outbound-url.ts';
import { type Forwarded, originRequestHeaders, visitorResponseHeaders } from './headers.ts';
import type { ProxyLimits } from './limits.ts';

/**
 * The connections to every origin of this node, with the connect, headers and body-idle timeouts. Unless
 * `allowPrivate`, each connection goes to a public address only: an address in the origin is checked as it is, a
 * name at every address it resolves to (a name that later resolves to a private address is refused too). An
 * origin is a customer's choice: pointed at 127.0.0.1 or 169.254.169.254, it would hand the service's own
 * network (its metrics port, cloud metadata) to any visitor of that hostname.
 */
export function originAgent(limits: ProxyLimits, allowPrivate = false): Agent {
  const connector = buildConnector({
    timeout: limits.connectTimeoutMs,
    ...(allowPrivate ? {} : { lookup: publicLookup(false) as never }),
  });
  return new Agent({
    connect: allowPrivate
      ? connector
      : (opts, callback) => {
          const host = opts.hostname.replace(/^\[|\]$/g, '');
          if (isIP(host) && !isAllowedAddress(host, false)) {
            const refused: NodeJS.ErrnoException = new Error(`${opts.hostname} is not a public address`);
            refused.code = 'ENOTPUBLIC';
            return callback(refused, null);
          }
          connector(opts, callback);
        },
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
 * as it arrives, the origin's answer written to the visitor as it comes, paused while the visitor's side is
 * full (redirects are passed on, never followed). Resolves once the origin's status and headers are
 * written (or it failed, or the visitor left); a failure of the body midway cuts the visitor's connection
 * (the status is out already). Written against undici's dispatcher directly: a response stream and a
 * pipeline per request were a sizeable share of the proxy's own work.
 */
export function forward(
  agent: Agent,
  req: IncomingMessage,
  res: ServerResponse,
  to: { origin: string; path: string; visitorBase: string; forwarded: Forwarded },
  logger: Logger,
): Promise<Forwarding> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | null = null;
    let answered = false;
    let left = false;
    const onClose = () => {
      if (res.writableFinished) return;
      left = true;
      controller?.abort(new Error('the visitor went away'));
    };
    res.once('close', onClose);
    const resume = () => controller?.resume();
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (left) c.abort(new Error('the visitor went away'));
      },
      onResponseStart(c, status, headers) {
        if (status < 200) return; // informational: the final answer follows
        try {
          res.writeHead(status, visitorResponseHeaders(headers, { origin: to.origin, visitorBase: to.visitorBase }));
        } catch (error) {
          // A header Node refuses to send (a character no header may hold): nothing written yet.
          c.abort(error as Error);
          return;
        }
        answered = true;
        res.on('drain', resume);
        const type = headers['content-type'];
        resolve({ kind: 'answered', status, html: typeof type === 'string' && /^text\/html\b/i.test(type) });
      },
      onResponseData(c, chunk) {
        if (!res.write(chunk)) c.pause();
      },
      onResponseEnd() {
        res.off('close', onClose);
        res.off('drain', resume);
        res.end();
      },
      onResponseError(_c, error) {
        res.off('close', onClose);
        res.off('drain', resume);
        if (answered) {
          if (!left) logger.debug(`proxy: an answer from ${to.origin} was cut off (${String(error)})`);
          res.destroy();
          return;
        }
        if (left) return resolve({ kind: 'left' });
        const code = (error as { code?: string }).code ?? '';
        resolve({ kind: 'failed', timeout: TIMEOUTS.has(code), error });
      },
    };
    try {
      agent.dispatch(
        {
          origin: to.origin,
          path: to.path,
          method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
          headers: originRequestHeaders(req.headers, to.forwarded),
          body: hasBody(req) ? req : null,
        },
        handler,
      );
    } catch (error) {
      res.off('close', onClose);
      resolve({ kind: 'failed', timeout: false, error });
    }
  });
}
