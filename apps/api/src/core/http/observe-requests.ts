import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
import type { ErrorReports } from '../observe/error-reports.ts';
import { httpDuration, httpRequests } from '../observe/metrics.ts';
import { heldNote, repeatGate } from '../observe/repeat-gate.ts';
import { currentRequest, newRequestScope, type RequestScope, runInRequest } from '../observe/request-scope.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Faces whose access lines are written at debug, not info: page reports and proxied requests come by the
 * thousand, health checks and scrapes every few seconds (docs/operations/observability.md, "Access lines").
 */
export const QUIET_FACES: ReadonlySet<string> = new Set(['collect', 'proxy', 'health', 'metrics']);

/** Status when the client left before the answer was written (as nginx logs it). */
const CLIENT_LEFT = 499;

/** A request's metric children for one face and operation: its counters by status class (index: status / 100) and its timer. */
interface OperationMetrics {
  counters: (ReturnType<typeof httpRequests.labels> | undefined)[];
  timer: ReturnType<typeof httpDuration.labels>;
}

/**
 * Metric children by face, then operation: looked up once per combination, and found again per request by two map
 * lookups of the names as they are (no key text put together per request: page reports come by the thousand).
 */
const metricsByFace = new Map<string, Map<string, OperationMetrics>>();

function count(face: string, operation: string, status: number, seconds: number) {
  let byOperation = metricsByFace.get(face);
  if (!byOperation) {
    byOperation = new Map();
    metricsByFace.set(face, byOperation);
  }
  let metrics = byOperation.get(operation);
  if (!metrics) {
    metrics = { counters: [], timer: httpDuration.labels(face, operation) };
    byOperation.set(operation, metrics);
  }
  const statusClass = Math.floor(status / 100);
  let counter = metrics.counters[statusClass];
  if (!counter) {
    counter = httpRequests.labels(face, operation, `${statusClass}xx`);
    metrics.counters[statusClass] = counter;
  }
  counter.inc();
  metrics.timer.observe(seconds);
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
  const outageLines = repeatGate();
  const ended = (scope: RequestScope, res: ServerResponse) => {
    if (scope.status !== undefined) return; // ended already
    const status = res.writableFinished ? res.statusCode : CLIENT_LEFT;
    scope.status = status;
    const ms = performance.now() - scope.startedAt;
    const operations = scope.operations.length ? scope.operations : [scope.route];
    for (const operation of operations) count(scope.face, operation, status, ms / 1000);
    errors?.requestEnded(scope, status);
    const quiet = QUIET_FACES.has(scope.face) && status < 500;
    if (quiet && !quietLines) return;
    // A quiet face's refusals of an outage (503, an origin's 502/504) come by the thousand: one line per route and
    // status every 10 s, saying how many more there were.
    let held = '';
    if (QUIET_FACES.has(scope.face) && status > 500 && !quietLines) {
      const gate = outageLines(`${scope.face} ${scope.method} ${scope.route} ${status}`);
      if (!gate.write) return;
      held = heldNote(gate.held);
    }
    const line = `${scope.method} ${scope.route} ${status} ${Math.round(ms)} ms${held}`;
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
    // 'close' comes once the answer has ended, or when the connection went first (then not finished). `on`, not
    // `once`: no wrapper per request (`ended` counts a request once).
    res.on('close', () => ended(scope, res));
    runInRequest(scope, () => handle(req, res));
  };
}

/** Puts the current request's id on its answer (`X-Request-Id`): every face of the service, never a proxied origin's answer. */
export function echoRequestId(res: ServerResponse): void {
  const id = currentRequest()?.id;
  if (id && !res.headersSent) res.setHeader('X-Request-Id', id);
}
