// The real server process (`main.ts`) started with DATABASE_URL at a PostgreSQL that does not answer yet, as when
// the database and the service start together (a compose file, a machine booting): it waits, saying so, and starts
// once PostgreSQL takes connections. One that never comes ends the start after DATABASE_WAIT_SECONDS, and one that
// refuses the password ends it at once; each with one line saying what to do, no stack trace, no password.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { launchServer, waitFor } from '../support/faults.ts';
import { ownServerSuite } from '../support/own-server.ts';

/** A port on 127.0.0.1 with nothing listening on it (yet). */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/** `url` with another port, or another password. */
function changed(url: string, change: { port?: number; password?: string }): string {
  const u = new URL(url);
  if (change.port) {
    u.hostname = '127.0.0.1';
    u.port = String(change.port);
  }
  if (change.password) u.password = change.password;
  return u.toString();
}

/** Forwards every connection to `port` on to PostgreSQL at `to`: the database "coming up" on that port. */
async function forwarder(port: number, to: URL): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(to.port || 5432), to.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return server;
}

const STACK = /\n\s+at /;
const ROOT = path.resolve(import.meta.dirname, '../../../..');
/** tsx's loader by its path: the entry runs in an empty folder of its own, where no `.env` of the repository is read. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('fault: the server started before its PostgreSQL answers', () => {
  const own = ownServerSuite('fault-postgres-at-start', async () => null);
  let comingUp: net.Server | undefined;
  afterAll(async () => {
    await new Promise<void>((r) => (comingUp ? comingUp.close(() => r()) : r()));
  });

  it('waits for PostgreSQL, saying so, and serves once it takes connections', { timeout: 180_000 }, async () => {
    const port = await closedPort();
    const launched = launchServer({
      DATABASE_URL: changed(own.db.url, { port }),
      DATABASE_WAIT_SECONDS: '120',
      DATA_DIR: own.dataDir,
      LOG_LEVEL: 'info',
    });
    own.server = { url: '', ...launched };
    expect(await waitFor(() => launched.output().includes('does not answer yet'), 60_000), launched.output()).toBe(true);
    expect(launched.output()).toContain(`PostgreSQL at ${new URL(own.db.url).username}@127.0.0.1:${port}/`);
    expect(launched.output()).toContain('trying again for up to 120 s (DATABASE_WAIT_SECONDS)');

    comingUp = await forwarder(port, new URL(own.db.url));
    let url = '';
    expect(
      await waitFor(() => {
        url = /listening on (http:\/\/\S+)/.exec(launched.output())?.[1] ?? '';
        return url !== '';
      }, 120_000),
      launched.output(),
    ).toBe(true);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    launched.proc.kill('SIGTERM');
    expect(await launched.exited).toEqual({ code: 0, signal: null });
  });

  it('ends the start after DATABASE_WAIT_SECONDS when PostgreSQL never answers, without the password', {
    timeout: 60_000,
  }, async () => {
    const port = await closedPort();
    const { exited, output } = launchServer({
      DATABASE_URL: changed(own.db.url, { port, password: 'hidden-pw-1' }),
      DATABASE_WAIT_SECONDS: '1',
      DATA_DIR: own.dataDir,
    });
    expect((await exited).code, output()).toBe(1);
    expect(output()).toContain(`Cannot reach PostgreSQL at ${new URL(own.db.url).username}@127.0.0.1:${port}/`);
    expect(output()).toContain('ECONNREFUSED');
    expect(output()).toContain('Start it, or check the host, port and TLS settings in DATABASE_URL');
    expect(output()).not.toContain('hidden-pw-1');
    expect(output()).not.toMatch(STACK);
  });

  it('the one-off jobs entry says the same when PostgreSQL never answers, without a stack trace', {
    timeout: 60_000,
  }, async () => {
    const port = await closedPort();
    const jobs = spawnSync(
      process.execPath,
      ['--conditions=@unseen-stats/source', '--import', TSX, path.join(ROOT, 'apps/api/src/jobs/run.ts'), 'rollups'],
      {
        cwd: own.dataDir,
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: changed(own.db.url, { port, password: 'hidden-pw-3' }),
          DATABASE_WAIT_SECONDS: '1',
        },
        encoding: 'utf8',
        timeout: 50_000,
      },
    );
    const output = jobs.stdout + jobs.stderr;
    expect(jobs.status, output).toBe(1);
    expect(output).toContain('does not answer yet');
    expect(output).toContain(`Cannot reach PostgreSQL at ${new URL(own.db.url).username}@127.0.0.1:${port}/`);
    expect(output).not.toContain('hidden-pw-3');
    expect(output).not.toMatch(STACK);
  });

  it('ends the start at once when PostgreSQL refuses the password, without waiting and without it', {
    timeout: 60_000,
  }, async () => {
    const { exited, output } = launchServer({
      DATABASE_URL: changed(own.db.url, { password: 'hidden-pw-2' }),
      DATABASE_WAIT_SECONDS: '600',
      DATA_DIR: own.dataDir,
    });
    expect((await exited).code, output()).toBe(1);
    expect(output()).toContain(
      'refused the connection: password authentication failed: check the user and password in DATABASE_URL',
    );
    expect(output()).not.toContain('does not answer yet');
    expect(output()).not.toContain('hidden-pw-2');
    expect(output()).not.toMatch(STACK);
  });
});
