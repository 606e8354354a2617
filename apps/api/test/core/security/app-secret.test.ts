// The secret kept in DATA_DIR/app-secret when APP_SECRET is not set: made once, read back, and refused when the
// file no longer holds one (emptied, cut short), rather than keying encryption and signatures with what is left.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/env.ts';
import { loadAppSecret } from '../../../src/core/security/app-secret.ts';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-app-secret-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the app secret kept in DATA_DIR', () => {
  it('is made once (readable by its owner only) and read back at the next start', () => {
    const dir = dataDir();
    const made = loadAppSecret(undefined, dir);
    expect(made.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, 'app-secret')).mode & 0o777).toBe(0o600);
    expect(loadAppSecret(undefined, dir)).toBe(made);
  });

  it('gives way to APP_SECRET', () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, 'app-secret'), 'x'.repeat(40));
    expect(loadAppSecret('y'.repeat(40), dir)).toBe('y'.repeat(40));
  });

  it.each([
    ['emptied', ''],
    ['cut short', 'Zm9vYmFy\n'],
  ])('is refused when the file was %s, naming the file and what to do, and the file is left as it was', (_, content) => {
    const dir = dataDir();
    const file = path.join(dir, 'app-secret');
    writeFileSync(file, content);
    expect(() => loadAppSecret(undefined, dir)).toThrow(ConfigError);
    expect(() => loadAppSecret(undefined, dir)).toThrow(
      new RegExp(
        `DATA_DIR: ${file} holds ${content.trim().length} characters, fewer than the 32 a secret needs: restore it from a backup`,
      ),
    );
    expect(readFileSync(file, 'utf8')).toBe(content);
  });
});
