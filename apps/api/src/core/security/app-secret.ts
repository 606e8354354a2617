import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../env.ts';
import { randomToken } from './tokens.ts';

/** As APP_SECRET's own bound: a shorter secret (a file emptied or cut short) keys nothing worth the name. */
const SHORTEST_SECRET = 32;

/**
 * The secret used for encryption and signing: APP_SECRET when set, otherwise generated once and kept
 * in `<DATA_DIR>/app-secret` (mode 600) so restarts keep working sessions and encrypted values. A kept
 * secret shorter than APP_SECRET's minimum is refused (ConfigError), never used.
 */
export function loadAppSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.resolve(dataDir, 'app-secret');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= SHORTEST_SECRET) return kept;
    throw new ConfigError('Invalid configuration:', [
      `DATA_DIR: ${file} holds ${kept.length} characters, fewer than the ${SHORTEST_SECRET} a secret needs: restore it from a backup (stored secrets are encrypted with it), or remove it to make a new one (encrypted values are then lost), or set APP_SECRET`,
    ]);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  // Written whole beside it, then linked into place: two servers starting at once on a new folder never read
  // a file half written, and both keep the one secret that got there first.
  const draft = `${file}.${process.pid}.draft`;
  writeFileSync(draft, `${randomToken(48)}\n`, { mode: 0o600 });
  chmodSync(draft, 0o600);
  try {
    linkSync(draft, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    rmSync(draft, { force: true });
  }
  return loadAppSecret(undefined, dataDir);
}
