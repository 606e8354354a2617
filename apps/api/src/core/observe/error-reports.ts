import type { ErrorContext, ErrorHook } from './error-hook.ts';
import { repeatGate } from './repeat-gate.ts';
import { currentRequest, type RequestScope } from './request-scope.ts';

export interface ErrorReportsOptions {
  /** Production: messages and stacks reach the hook with secrets and addresses blanked (the logger's `redactLine`). */
  redact?: (text: string) => string;
}

/** An error as the hook gets it: always an Error; in production a copy with its message and stack redacted. */
function reportable(err: unknown, fallback: string, redact?: (text: string) => string): Error {
  const e = err instanceof Error ? err : new Error(err === undefined ? fallback : String(err));
  if (!redact) return e;
  const copy = new Error(redact(e.message));
  copy.name = e.name;
  copy.stack = e.stack === undefined ? undefined : redact(e.stack);
  return copy;
}

/**
 * Who tells the error-reporting hook (ERROR_HOOK). Errors logged while a request is served wait for its end and
 * are reported once with its request id, route template and status; a request answered 5xx is reported even when
 * nothing was logged; errors logged outside any request, and the process's uncaught ones, are reported at once.
 * A hook that throws (or rejects) is noted with `onHookFailure`, never passed on.
 */
export class ErrorReports {
  private readonly outageReports = repeatGate();
  /** Errors reported as the process's own (`uncaught`), so that logging them does not report them twice. */
  private readonly processErrors = new WeakSet<object>();

  /** Set once the logger exists (it is made after this): a warning, never an error (that would loop back here). */
  onHookFailure: (err: unknown) => void = () => {};

  constructor(
    private readonly hook: ErrorHook | undefined,
    private readonly opts: ErrorReportsOptions = {},
  ) {}

  get enabled(): boolean {
    return this.hook !== undefined;
  }

  /** An error was logged (the logger's `onError`). */
  logged(err: unknown, msg: string): void {
    if (!this.hook || (typeof err === 'object' && err !== null && this.processErrors.has(err))) return;
    const scope = currentRequest();
    if (scope && scope.status === undefined) {
      scope.errors.push({ err, msg });
      return;
    }
    // Work that goes on after its answer (a page report's rows) is reported with what its request said.
    this.send(err, scope ? { ...requestContext(scope, scope.status), message: msg } : { source: 'log', message: msg });
  }

  /** A request ended with `status` (499: the client left first). */
  requestEnded(scope: RequestScope, status: number): void {
    if (!this.hook) return;
    const first = scope.errors[0];
    if (!first && status < 500) return;
    // An answer of 5xx with no error of ours behind it (a dependency down, an origin gone) is met by every request
    // meanwhile: one report per route and status every 10 s, not one each (a tracker's quota went in minutes).
    if (!first && !this.outageReports(`${scope.face} ${scope.method} ${scope.route} ${status}`).write) return;
    const message = first?.msg ?? `${scope.method} ${scope.route} answered ${status}`;
    this.send(first?.err ?? new Error(message), { ...requestContext(scope, status), message });
  }

  /** The process met an error nothing caught (reported before it is logged: the process is about to stop). */
  uncaught(err: unknown, source: 'uncaughtException' | 'unhandledRejection'): Promise<void> {
    if (typeof err === 'object' && err !== null) this.processErrors.add(err);
    return this.send(err, { source, message: source });
  }

  private send(err: unknown, context: ErrorContext): Promise<void> {
    const hook = this.hook;
    if (!hook) return Promise.resolve();
    const redact = this.opts.redact;
    const error = reportable(err, context.message, redact);
    if (redact) context.message = redact(context.message);
    return Promise.resolve()
      .then(() => hook.report(error, context))
      .then(
        () => undefined,
        (failure) => this.onHookFailure(failure),
      );
  }
}

function requestContext(scope: RequestScope, status: number | undefined): Omit<ErrorContext, 'message'> {
  return {
    source: 'request',
    requestId: scope.id,
    method: scope.method,
    route: scope.route,
    face: scope.face,
    operations: [...scope.operations],
    ...(status === undefined ? {} : { status }),
  };
}
