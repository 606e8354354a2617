import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
import type { ErrorReports } from '../observe/error-reports.ts';
import { httpDuration, httpRequests } from '../observe/metrics.ts';
import { currentRequest, newRequestScope, type RequestScope, runInRequest } from '../observe/request-scope.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Faces whose access lines are written at debug, not info: page reports and proxied requests come by the
 * thousand, health checks and scrapes every few seconds (docs/operations/observability.md, "Access lines").
 */
export const QUIET_FACES: ReadonlySet<string> = new Set(['collect', 'proxy', 'health', 'metrics']);

/** Status when the client left before the answer was written (as nginx logs it). */
const CLIENT_LEFT = 499;

/** Metric children by label values: looked up once per combination rather than hashed on every request. */
const counters = new Map<string, ReturnType<typeof httpRequests.labels>>();
const timers = new Map<string, ReturnType<typeof httpDuration.labels>>();

function count(face: string, operation: string, status: number, seconds: number) {
  const statusClass = `${Math.floor(status / 100)}xx`;
  const key = `${face}\u0000${operation}`;
  const countKey = `${key}\u0000${statusClass}`;
  let counter = counters.get(countKey);
  if (!counter) {
    counter = httpRequests.labels(face, operation, statusClass);
    counters.set(countKey, counter);
  }
  counter.inc();
  let timer = timers.get(key);
  if (!timer) {
    timer = httpDuration.labels(face, operation);
    timers.set(key, timer);
  }
  timer.observe(seconds);
}

/**
 * Serves each request inside its own scope (`observe/request-scope.ts`): its request id is on every line logged
 * meanwhile, and when its answer has ended (or the client left) the access line, the request metrics and, for a
 * 5xx or a logged error, the error report follow.
 */
export function observeRequests(
  parts: { logger: Logger; errors?: ErrorReports; env: { LOG_LEVEL: string } },
  handle: Handler,
): Handler {
  const { logger, errors } = parts;
  // Without debug lines, a quiet face's access line is not even put together (page reports come by the thousand).
  const quietLines = parts.env.LOG_LEVEL === 'debug';
  const ended = (scope: RequestScope, res: ServerResponse) => {
    const status = res.writableFinished ? res.statusCode : CLIENT_LEFT;
    scope.status = status;
    const ms = performance.now() - scope.startedAt;
    const operations = scope.operations.length ? scope.operations : [scope.route];
    for (const operation of operations) count(scope.face, operation, status, ms / 1000);
    errors?.requestEnded(scope, status);
    const quiet = QUIET_FACES.has(scope.face) && status < 500;
    if (quiet && !quietLines) return;
    const line = `${scope.method} ${scope.route} ${status} ${Math.round(ms)} ms`;
    const fields = {
      method: scope.method,
      route: scope.route,
      status,
      ms: Math.round(ms * 10) / 10,
      face: scope.face,
      operation: operations.join(','),
    };
    runInRequest(scope, () => {
      if (quiet) logger.debug(line, fields);
      else logger.info(line, fields);
    });
  };
  return (req, res) => {
    const scope = newRequestScope(req.method, req.headers['x-request-id']);
    // 'close' comes once the answer has ended, or when the connection went first (then not finished).
    res.once('close', () => ended(scope, res));
    runInRequest(scope, () => handle(req, res));
  };
}

/** Puts the current request's id on its answer (`X-Request-Id`): every face of the service, never a proxied origin's answer. */
export function echoRequestId(res: ServerResponse): void {
  const id = currentRequest()?.id;
  if (id && !res.headersSent) res.setHeader('X-Request-Id', id);
}
