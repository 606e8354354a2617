import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomToken } from './tokens.ts';

/**
 * The secret used for encryption and signing: APP_SECRET when set, otherwise generated once and kept
 * in `<DATA_DIR>/app-secret` (mode 600) so restarts keep working sessions and encrypted values.
 */
export function loadAppSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.resolve(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomToken(48);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
