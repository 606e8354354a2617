import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  const secret = randomToken(48);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
