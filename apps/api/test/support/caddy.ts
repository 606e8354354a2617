import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { freePort } from '@us/db';
import { vi } from 'vitest';

/** The production Caddyfile: the tests run it as it is, with test-only global options added. */
export const PRODUCTION_CADDYFILE = path.resolve(import.meta.dirname, '../../../../infra/caddy/Caddyfile');

/** Whether the `caddy` binary (Debian package) is on PATH. */
export function hasCaddy(): boolean {
  return spawnSync('caddy', ['version'], { stdio: 'ignore' }).status === 0;
}

/**
 * True once Caddy completes a TLS handshake for `servername` with a certificate its local root `ca` signed: its TLS
 * app is running (a listener accepts connections before that, and a handshake then could fail).
 */
function servesTls(port: number, servername: string, ca: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, servername, ca });
    socket.setTimeout(5_000, () => socket.destroy(new Error('timed out')));
    socket.once('secureConnect', () => {
      resolve(socket.authorized);
      socket.end();
    });
    socket.once('error', () => resolve(false));
  });
}

/** True once something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A real Caddy running infra/caddy/Caddyfile in front of the service on 127.0.0.1:`servicePort`, with global
 * options of the test's own: free high ports, no admin endpoint, storage in a temporary folder, and every
 * certificate from Caddy's local CA (`local_certs`: `tls internal` for every site, the on-demand one
 * included) that is never installed in the system's trust store. `rootCa` is that CA's root, to trust.
 * Resolves once Caddy listens on its HTTPS port, has made its CA, and serves the public hostname over TLS.
 */
export async function startCaddy(opts: { servicePort: number; publicHost: string }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-caddy-'));
  const storage = path.join(dir, 'storage');
  mkdirSync(storage);
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const testGlobals = [
    'admin off',
    `http_port ${httpPort}`,
    `https_port ${httpsPort}`,
    `storage file_system {\n\t\troot ${storage}\n\t}`,
    'local_certs',
    'skip_install_trust',
  ];
  const production = readFileSync(PRODUCTION_CADDYFILE, 'utf8');
  if (!/^\{$/m.test(production)) throw new Error(`${PRODUCTION_CADDYFILE} has no global options block to add to`);
  const config = path.join(dir, 'Caddyfile');
  writeFileSync(config, production.replace(/^\{$/m, `{\n\t${testGlobals.join('\n\t')}`));

  let log = '';
  const proc: ChildProcess = spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
    env: {
      ...process.env,
      PORT: String(opts.servicePort),
      PUBLIC_HOST: opts.publicHost,
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, 'config'),
      XDG_DATA_HOME: path.join(dir, 'data'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));

  const rootCaPath = path.join(storage, 'pki', 'authorities', 'local', 'root.crt');
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await vi.waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`caddy exited (${proc.exitCode}):\n${log}`);
        if (!(await accepts(httpsPort)) || !existsSync(rootCaPath)) throw new Error(`caddy is not ready yet:\n${log}`);
        // The service's own hostname, whose certificate Caddy gets at start: ready once it is served.
        if (!(await servesTls(httpsPort, opts.publicHost, readFileSync(rootCaPath)))) {
          throw new Error(`caddy does not serve ${opts.publicHost} over TLS yet:\n${log}`);
        }
      },
      { timeout: 30_000, interval: 100 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    httpsPort,
    httpPort,
    /** Caddy's local root certificate (PEM): trust it to check the certificates Caddy serves. */
    rootCa: readFileSync(rootCaPath),
    /** What Caddy logged lately (for a failing test's message). */
    log: () => log,
    stop,
  };
}
export type Caddy = Awaited<ReturnType<typeof startCaddy>>;
