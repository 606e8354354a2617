import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/env.ts';
import { loadErrorHook } from '../../../src/core/observe/error-hook.ts';
import { isStartRefusal } from '../../../src/core/start-refusals.ts';
import { collectSite } from '../../support/collect.ts';
import { failing, reported } from '../../support/error-hook.ts';
import { captureLogs } from '../../support/logs.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const HOOK = fileURLToPath(new URL('../../support/error-hook.ts', import.meta.url));

describe('ERROR_HOOK: loading the module', () => {
  it('stops the start with one line naming the setting when the module cannot be loaded', async () => {
    const missing = await loadErrorHook('./no/such/hook.mjs').catch((e: unknown) => e);
    // A refusal of the settings: the start prints it as one line and exits, no stack (it was a plain error).
    expect(missing).toBeInstanceOf(ConfigError);
    expect(isStartRefusal(missing)).toBe(true);
    expect(String((missing as Error).message)).toMatch(/ERROR_HOOK: \.\/no\/such\/hook\.mjs could not be loaded/);
    await expect(loadErrorHook('no-such-error-reporting-package')).rejects.toThrow(
      /ERROR_HOOK: no-such-error-reporting-package could not be loaded/,
    );
  });

  it('refuses a module that exports no report function', async () => {
    const logsModule = fileURLToPath(new URL('../../support/logs.ts', import.meta.url));
    await expect(loadErrorHook(logsModule)).rejects.toThrow('exports no report(error, context) function');
    await expect(loadErrorHook('node:path')).rejects.toThrow('ERROR_HOOK: node:path exports no report(error, context) function');
  });

  it('takes a file path or nothing', async () => {
    expect(await loadErrorHook(undefined)).toBeUndefined();
    expect(typeof (await loadErrorHook(HOOK))?.report).toBe('function');
  });
});

/** In production, with the test's hook module: what reaches it, and what never does. */
describe('ERROR_HOOK: what is reported', () => {
  let t: TestServer;
  const logs = captureLogs();
  let owner: Awaited<ReturnType<typeof collectSite>>;
  const since = () => reported.length;

  beforeAll(async () => {
    t = await startTestServer({
      env: { NODE_ENV: 'production', ERROR_HOOK: HOOK, LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      logs: logs.destination,
    });
    owner = await collectSite(t, 'error-hook.example');
  });
  afterAll(() => t?.close());

  /** A sign-in whose hot store fails with `err`: the face answers 500. */
  async function failingLogin(err: Error, requestId: string) {
    const incr = t.deps.hot.incr.bind(t.deps.hot);
    t.deps.hot.incr = () => Promise.reject(err);
    try {
      return await t.request
        .post('/v1/auth/login')
        .set('X-Request-Id', requestId)
        .send({ email: owner.ownerEmail, password: 'the-password-sent-1' })
        .expect(500);
    } finally {
      t.deps.hot.incr = incr;
    }
  }

  it('reports a 5xx once, with its request id, route template and status; no body, no address', async () => {
    const first = since();
    await failingLogin(new Error('store at 10.1.2.3:6379 refused'), 'hook-500');
    await expect.poll(() => reported.length).toBe(first + 1);
    const [only] = reported.slice(first);
    expect(only?.context).toEqual({
      source: 'request',
      message: 'POST /v1/auth/login failed',
      requestId: 'hook-500',
      method: 'POST',
      route: '/v1/auth/login',
      face: 'rest',
      operations: ['auth.login'],
      status: 500,
    });
    // Production: the error's own text reaches the hook with addresses blanked, and the body not at all.
    expect(only?.error.message).toBe('store at [ip]:6379 refused');
    const everything = JSON.stringify({ ...only, stack: only?.error.stack });
    expect(everything).not.toContain('10.1.2.3');
    expect(everything).not.toContain('the-password-sent-1');
    expect(everything).not.toContain(owner.ownerEmail);
  });

  it('does not report a request answered 4xx', async () => {
    const first = since();
    await t.request.get('/v1/sites/00000000-0000-4000-8000-000000000000').set('Authorization', owner.auth).expect(404);
    await t.request.get('/v1/sites').expect(401);
    // Reports go out when a request ends: one more request after these shows nothing is on its way.
    await failingLogin(new Error('marker'), 'hook-marker');
    await expect.poll(() => reported.length).toBe(first + 1);
    expect(reported.at(-1)?.context.requestId).toBe('hook-marker');
  });

  it('reports an error logged outside any request at once', async () => {
    const first = since();
    t.deps.logger.error('jobs: rollups failed', new Error('the job broke'));
    await expect.poll(() => reported.length).toBe(first + 1);
    expect(reported.at(-1)?.context).toEqual({ source: 'log', message: 'jobs: rollups failed' });
    expect(reported.at(-1)?.error.message).toBe('the job broke');
  });

  it('a hook that throws is noted as a warning; the answer is as without it', async () => {
    failing(true);
    try {
      const res = await failingLogin(new Error('with a broken hook'), 'hook-broken');
      expect(res.body).toMatchObject({ status: 500 });
      await expect
        .poll(() => logs.lines().some((l) => l.level === 'warn' && /ERROR_HOOK: the hook failed/.test(l.msg)))
        .toBe(true);
    } finally {
      failing(false);
    }
    // The server still serves, and reports again.
    await t.request.get('/healthz').expect(200);
  });
});
