import type { Deps } from '../../src/core/deps.ts';
import { createCtx } from '../../src/faces/request-context.ts';
import { createCallerFactory } from '../../src/procedures/init.ts';
import { appRouter } from '../../src/router.ts';

const createCaller = createCallerFactory(appRouter);

/**
 * The service-level test layer: the router called in-process with every middleware (builders, scopes,
 * site restriction, unsafe-text refusal), as the REST and MCP faces call it, without HTTP. A `shareView`
 * credential calls as the dashboard's tRPC face does for a shared link's viewer (X-Share-View). A call takes
 * milliseconds; the HTTP suites keep what only HTTP shows (statuses, headers, bodies on the wire).
 */
export function callerFor(
  deps: Deps,
  credential: { token: string } | { sessionCookie: string } | { shareView: string } | { anonymous: true },
) {
  const ctx = createCtx(deps, {
    face: 'rest',
    method: 'POST',
    ip: '127.0.0.1',
    userAgent: 'caller-test',
    sessionCookie: 'sessionCookie' in credential ? credential.sessionCookie : undefined,
    bearer: 'token' in credential ? credential.token : undefined,
    shareView: 'shareView' in credential ? credential.shareView : undefined,
    workspaceHint: undefined,
    origin: undefined,
    secFetchSite: undefined,
    host: '127.0.0.1',
    selfOrigin: 'http://127.0.0.1',
    insecureLocalhost: true,
  });
  return createCaller(ctx);
}

/** The problem a refused call carries (status, title, field), for assertions. */
export async function problemOf(call: Promise<unknown>): Promise<{ status: number; title: string; field?: string }> {
  try {
    await call;
  } catch (err) {
    const app = (err as { cause?: { status?: number; title?: string; field?: string } }).cause;
    if (app?.status) return { status: app.status, title: app.title ?? '', field: app.field };
    throw err;
  }
  throw new Error('the call was not refused');
}
