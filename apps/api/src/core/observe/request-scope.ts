import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The request being served, carried through every await of its handling by AsyncLocalStorage: the logger adds
 * its `id` to each line, the faces name what it is (`label`), and when it ends the access line and the request
 * metrics are written from it (`http/observe-requests.ts`).
 */
export interface RequestScope {
  /** The request id: the client's `X-Request-Id` when sane, else made here; echoed in the answer. */
  readonly id: string;
  readonly method: string;
  /** `performance.now()` when the request arrived. */
  readonly startedAt: number;
  /** Which way in: rest, trpc, mcp, collect, downloads, proxy, health, metrics, dashboard, … */
  face: string;
  /** The route template (`/v1/sites/{id}`), never the path as sent: paths hold ids and download links. */
  route: string;
  /**
   * The operations answered (procedure paths such as `sites.get`, or a fixed name per route): one, or each
   * call of a batch. Only names from a closed list, so the metrics' labels stay bounded.
   */
  operations: string[];
  /** Errors logged while serving it; reported once when it ends (`observe/error-reports.ts`). */
  errors: { err: unknown; msg: string }[];
  /** The status answered, once it ended (499: the client left before the answer was written). */
  status?: number;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The request being served here, if any. */
export function currentRequest(): RequestScope | undefined {
  return scopes.getStore();
}

/** What a client may choose as its request id: 1–64 of letters, digits and `._:-`. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The client's `X-Request-Id` when it is sane, else a new one (a hostile value is never echoed or logged). */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : randomUUID();
}

/** A new scope for a request that just arrived. */
export function newRequestScope(method: string | undefined, idHeader: string | string[] | undefined): RequestScope {
  return {
    id: requestIdFrom(idHeader),
    method: method ?? 'GET',
    startedAt: performance.now(),
    face: 'other',
    route: '(unmatched)',
    operations: [],
    errors: [],
  };
}

/** Runs `fn` as the handling of the request `scope` describes. */
export function runInRequest<T>(scope: RequestScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** Runs `fn` in no request's scope (what it schedules runs in none either). */
export function outsideRequests<T>(fn: () => T): T {
  return scopes.exit(fn);
}

/**
 * Names what the current request is: its face, route template and operation. Faces call it as soon as they
 * know (the REST face once a route matched); later calls refine earlier ones.
 */
export function label(face: string, route: string, operation?: string): void {
  const scope = scopes.getStore();
  if (!scope) return;
  scope.face = face;
  scope.route = route;
  if (operation !== undefined) scope.operations = [operation];
}

/** Names the operations of the current request when they are several (a batch): each is counted. */
export function labelOperations(operations: string[]): void {
  const scope = scopes.getStore();
  if (scope && operations.length) scope.operations = operations;
}

const called = new WeakSet<RequestScope>();

/**
 * Notes one operation the current request called (a tool of an MCP request): the first replaces the name the
 * route gave (`mcp`), later ones (a batch) are added.
 */
export function noteOperation(operation: string): void {
  const scope = scopes.getStore();
  if (!scope) return;
  if (called.has(scope)) scope.operations.push(operation);
  else {
    called.add(scope);
    scope.operations = [operation];
  }
}
