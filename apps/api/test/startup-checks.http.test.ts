import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { staleOfflineData } from '../src/startup-checks.ts';
import { createOwnDatabase, launchServer, type ServerProcess, spawnServer } from './support/faults.ts';

/**
 * The real server entry (`main.ts`, as `npm start` runs it) with unsafe production settings: it says
 * what is wrong, one line each and all at once, and exits 1 before starting anything; with a `.env`
 * file it reads the file and lets the environment win; with safe settings it starts and warns.
 */

/** Runs main.ts until it exits (a refused start exits before it listens). */
async function refused(env: Record<string, string>, opts: Parameters<typeof launchServer>[1] = {}) {
  const server = launchServer(env, { noProductionDefaults: true, ...opts });
  const timer = setTimeout(() => server.proc.kill('SIGKILL'), 60_000);
  const exit = await server.exited;
  clearTimeout(timer);
  return { code: exit.code, lines: server.output().trimEnd().split('\n') };
}

const SECRET = 'x'.repeat(48);

describe('start-up refuses unsafe production settings', () => {
  it('names every missing setting at once and exits 1', async () => {
    const { code, lines } = await refused({ NODE_ENV: 'production' });
    expect(code).toBe(1);
    expect(lines).toEqual([
      'Refusing to start with NODE_ENV=production:',
      expect.stringMatching(/^ {2}APP_SECRET is not set: give 32\+ random characters/),
      expect.stringMatching(/^ {2}BASE_URL is not set: give the public https address of the API/),
      expect.stringMatching(/^ {2}APP_URL is not set \(nor BASE_URL, its default\): /),
    ]);
  });

  it('refuses a public address without https, TRUST_PROXY without its hops, and credentials over plain http', async () => {
    const { code, lines } = await refused({
      NODE_ENV: 'production',
      APP_SECRET: SECRET,
      BASE_URL: 'https://stats.example.com',
      APP_URL: 'http://app.example.com',
      TRUST_PROXY: 'true',
      STRIPE_API_URL: 'http://stripe.example.com',
    });
    expect(code).toBe(1);
    expect(lines).toEqual([
      'Refusing to start with NODE_ENV=production:',
      '  APP_URL is not https (http://app.example.com): sign-in cookies, e-mail links and the page script must not travel in clear text',
      expect.stringMatching(/^ {2}TRUST_PROXY=true but TRUST_PROXY_HOPS is not set: give the number of proxies/),
      expect.stringMatching(/^ {2}STRIPE_API_URL is plain http to another machine \(http:\/\/stripe.example.com\)/),
    ]);
  });

  it('refuses http on this machine unless ALLOW_HTTP_LOCALHOST=true says it is meant', async () => {
    const { code, lines } = await refused({ NODE_ENV: 'production', APP_SECRET: SECRET, BASE_URL: 'http://localhost:8080' });
    expect(code).toBe(1);
    expect(lines[1]).toMatch(
      /^ {2}BASE_URL is http on this machine only \(http:\/\/localhost:8080\): .*ALLOW_HTTP_LOCALHOST=true/,
    );
    expect(lines).toHaveLength(2);
  });

  it('names a POSTGRES_SETTINGS_FILE that does not exist, without a stack trace', async () => {
    const { code, lines } = await refused({ POSTGRES_SETTINGS_FILE: '/nonexistent/1gb.conf' });
    expect(code).toBe(1);
    expect(lines).toEqual([
      'Invalid configuration:',
      expect.stringMatching(/^ {2}POSTGRES_SETTINGS_FILE: \/nonexistent\/1gb\.conf does not exist/),
    ]);
  });

  it('names a DATA_DIR it cannot make, without a stack trace', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'us-data-dir-'));
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    try {
      const { code, lines } = await refused({ DATA_DIR: path.join(file, 'data') });
      expect(code).toBe(1);
      expect(lines).toEqual([
        'Invalid configuration:',
        `  DATA_DIR: ${path.join(file, 'data')} cannot be made or written (ENOTDIR): give a folder this process can create and write`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names an app-secret file cut short, before it starts the embedded PostgreSQL', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'us-data-dir-'));
    writeFileSync(path.join(dir, 'app-secret'), 'garbage\n');
    try {
      const { code, lines } = await refused({ DATA_DIR: dir });
      expect(code).toBe(1);
      expect(lines).toEqual([
        'Invalid configuration:',
        expect.stringMatching(/^ {2}DATA_DIR: .*app-secret holds 7 characters, fewer than the 32 a secret needs/),
      ]);
      // Refused first: no PostgreSQL was made or started for it.
      expect(existsSync(path.join(dir, 'postgres'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says which value is invalid, without a stack trace', async () => {
    const { code, lines } = await refused({ PORT: 'eighty' });
    expect(code).toBe(1);
    expect(lines).toEqual(['Invalid configuration:', expect.stringMatching(/^ {2}PORT: /)]);
  });
});

describe('the .env file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-dotenv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is read from the working directory, and the environment's variables win over it", async () => {
    writeFileSync(
      path.join(dir, '.env'),
      ['NODE_ENV=production', 'APP_URL=http://from-file.example.com', 'TRUST_PROXY=true', ''].join('\n'),
    );
    const { code, lines } = await refused(
      { APP_SECRET: SECRET, BASE_URL: 'https://stats.example.com', APP_URL: 'https://from-env.example.com' },
      { cwd: dir },
    );
    expect(code).toBe(1);
    // NODE_ENV and TRUST_PROXY came from the file; its APP_URL lost to the environment's https one.
    expect(lines).toEqual([
      'Refusing to start with NODE_ENV=production:',
      expect.stringMatching(/^ {2}TRUST_PROXY=true but TRUST_PROXY_HOPS is not set/),
    ]);
  });

  it('is the file ENV_FILE names when set; a missing one stops the start', async () => {
    writeFileSync(path.join(dir, 'other.env'), 'NODE_ENV=production\n');
    const named = await refused({ ENV_FILE: 'other.env' }, { cwd: dir });
    expect(named.code).toBe(1);
    expect(named.lines[0]).toBe('Refusing to start with NODE_ENV=production:');
    const missing = await refused({ ENV_FILE: 'missing.env' }, { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.lines).toEqual(['Invalid configuration:', `  ENV_FILE: no such file: ${path.join(dir, 'missing.env')}`]);
  });
});

describe('a safe production start', () => {
  let db: { url: string; drop(): Promise<void> };
  let server: ServerProcess | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-startup-'));

  beforeAll(async () => {
    // A database of its own: a real server runs its jobs over every site at start-up.
    db = await createOwnDatabase(inject('databaseUrl'));
  });
  afterAll(async () => {
    if (server?.proc.exitCode === null) server.proc.kill('SIGKILL');
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, warns about the default sender, mail to the outbox and each piece of stale offline data, and stops', async () => {
    server = await spawnServer({
      NODE_ENV: 'production',
      APP_SECRET: SECRET,
      BASE_URL: 'http://127.0.0.1',
      ALLOW_HTTP_LOCALHOST: 'true',
      TRUST_PROXY: 'true',
      TRUST_PROXY_HOPS: '1',
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const s = server;
    // Production logs are JSON lines (docs/operations/observability.md).
    const warnings = () =>
      s
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: string; msg: string })
        .filter((l) => l.level === 'warn')
        .map((l) => l.msg);
    // Logged once it listens, by the server's own logger.
    await vi.waitFor(() =>
      expect(warnings()).toEqual([
        expect.stringMatching(/^MAIL_FROM is Unseen Stats <no-reply@localhost>: /),
        expect.stringMatching(/^SMTP_URL is not set: /),
        // As many as this day calls for (none when every piece is fresh), each as the check words it.
        ...staleOfflineData(),
      ]),
    );
    server.proc.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
