import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadEnvFile, parseEnv } from '../../src/core/env.ts';

/** `.env` at start-up: the file fills what the environment leaves unset, as Node's process.loadEnvFile does. */
describe('loadEnvFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'us-env-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const FILE = [
    '# a comment',
    'PORT=9123',
    'MAIL_FROM="Stats <stats@example.com>"',
    'export HOST=0.0.0.0',
    'LOG_LEVEL=warn',
    '',
  ].join('\n');

  it("reads .env in the working directory; the environment's own variables win", () => {
    writeFileSync(path.join(dir, '.env'), FILE);
    const target: NodeJS.ProcessEnv = { LOG_LEVEL: 'error' };
    expect(loadEnvFile(target, dir)).toBe(path.join(dir, '.env'));
    const env = parseEnv(target);
    expect(env).toMatchObject({ PORT: 9123, MAIL_FROM: 'Stats <stats@example.com>', HOST: '0.0.0.0', LOG_LEVEL: 'error' });
  });

  it('keeps a variable set empty in the environment (it counts as unset), as process.loadEnvFile does', () => {
    writeFileSync(path.join(dir, '.env'), FILE);
    const target: NodeJS.ProcessEnv = { PORT: '' };
    loadEnvFile(target, dir);
    expect(target.PORT).toBe('');
    expect(parseEnv(target).PORT).toBe(8080);
  });

  it('is the same as process.loadEnvFile on this Node', () => {
    writeFileSync(path.join(dir, '.env'), `${FILE}QUOTED='a # b'\nSPACED = x y \n`);
    const ours: NodeJS.ProcessEnv = { PORT: '1' };
    loadEnvFile(ours, dir);
    // Node's own, into a copy of process.env holding the same starting variable.
    const saved = { ...process.env };
    try {
      for (const k of Object.keys(process.env)) delete process.env[k];
      process.env.PORT = '1';
      process.loadEnvFile(path.join(dir, '.env'));
      expect(ours).toEqual({ ...process.env });
    } finally {
      for (const k of Object.keys(process.env)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('reads the file ENV_FILE names instead, relative to the working directory', () => {
    writeFileSync(path.join(dir, '.env'), 'PORT=1111\n');
    writeFileSync(path.join(dir, 'staging.env'), 'PORT=2222\n');
    const target: NodeJS.ProcessEnv = { ENV_FILE: 'staging.env' };
    expect(loadEnvFile(target, dir)).toBe(path.join(dir, 'staging.env'));
    expect(target.PORT).toBe('2222');
  });

  it('without a .env does nothing; a missing ENV_FILE is an error naming it', () => {
    const target: NodeJS.ProcessEnv = { PORT: '1' };
    expect(loadEnvFile(target, dir)).toBeUndefined();
    expect(target).toEqual({ PORT: '1' });
    const named = () => loadEnvFile({ ENV_FILE: 'nowhere.env' }, dir);
    expect(named).toThrow(ConfigError);
    expect(named).toThrow(`ENV_FILE: no such file: ${path.join(dir, 'nowhere.env')}`);
  });
});
