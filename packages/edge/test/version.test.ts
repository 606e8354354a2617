import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const version = (file: string) =>
  (JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as { version: string }).version;

it('is versioned with the service: the edge package has the root package’s version', () => {
  expect(version('../package.json')).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  expect(version('../package.json')).toBe(version('../../../package.json'));
});
