import type { IncomingMessage, ServerResponse } from 'node:http';
import { isNavigation, type RefusalKind, refusalPage } from '@unseen-stats/edge/protect';
import { type AppError, toProblem } from '../../core/errors.ts';
import { currentRequest } from '../../core/observe/request-scope.ts';

/** The request id on the proxy's own answers (a forwarded answer is the origin's, and keeps its own headers). */
const requestIdHeader = (): Record<string, string> => {
  const id = currentRequest()?.id;
  return id ? { 'x-request-id': id } : {};
};

const header = (req: IncomingMessage, name: string): string | null => {
  const v = req.headers[name];
  return (Array.isArray(v) ? v.join(', ') : v) ?? null;
};

/**
 * The answer to a challenged or refused request, as the edge SDK gives it (`@unseen-stats/edge`'s pages): a challenged
 * navigation goes to the check page (302), or gets the "cannot return here" page when there is no check
 * page to send it to; any other challenged request and every refused one gets the small 403 page. Answers
 * the status sent.
 */
export function actOn(
  req: IncomingMessage,
  res: ServerResponse,
  decision: { action: 'challenge' | 'deny'; challengeUrl?: string },
): number {
  const method = (req.method ?? 'GET').toUpperCase();
  const accept = header(req, 'accept');
  let kind: RefusalKind = 'deny';
  if (decision.action === 'challenge') {
    kind = 'challenge';
    if (isNavigation(method, accept, header(req, 'sec-fetch-mode'))) {
      if (decision.challengeUrl) {
        res.writeHead(302, { location: decision.challengeUrl, 'cache-control': 'no-store', ...requestIdHeader() });
        res.end();
        return 302;
      }
      kind = 'no-return';
    }
  }
  const ids = requestIdHeader();
  const page = refusalPage(kind, accept, ids['x-request-id'] ?? null);
  res.writeHead(page.status, { ...page.headers, 'content-length': Buffer.byteLength(page.body), ...ids });
  res.end(method === 'HEAD' ? undefined : page.body);
  return page.status;
}

/** A problem of the proxy itself (the origin unreachable or slow, the site busy) as application/problem+json. */
export function sendProxyProblem(res: ServerResponse, err: AppError): number {
  const body = JSON.stringify(toProblem(err));
  const headers: Record<string, string> = {
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    ...requestIdHeader(),
  };
  if (err.retryAfter !== undefined) headers['retry-after'] = String(err.retryAfter);
  res.writeHead(err.status, headers);
  res.end(body);
  return err.status;
}
