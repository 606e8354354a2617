import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderEnvExample, settings, withSettingsTables } from '../../scripts/settings-docs.ts';

/**
 * `.env.example` and docs/configuration.md's settings tables are what `npm run env:example` makes from
 * apps/api/src/core/env.ts now, every setting there has a meaning, and nothing else reads process.env: so
 * the example names every setting the code reads.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('.env.example and the settings tables', () => {
  it('.env.example is what `npm run env:example` makes now', () => {
    expect(read('.env.example'), 'run `npm run env:example` and commit .env.example').toBe(renderEnvExample());
  });

  it("docs/configuration.md's settings tables are what `npm run env:example` makes now", () => {
    const doc = read('docs/configuration.md');
    expect(doc, 'run `npm run env:example` and commit docs/configuration.md').toBe(withSettingsTables(doc));
  });

  it('every setting has a group and a meaning, and says what unset means when it has no default', () => {
    const undescribed = settings()
      .filter((s) => !s.help?.meaning || (s.default === undefined && !s.help.unset))
      .map((s) => s.name);
    expect(undescribed, 'add `.register(help, { group, meaning, unset })` to these in core/env.ts').toEqual([]);
  });

  it('names every setting, with its default, and never a value for a secret', () => {
    const example = read('.env.example');
    const lines = new Map([...example.matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1], m[2]]));
    for (const s of settings()) {
      expect(lines.has(s.name), s.name).toBe(true);
      if (s.help?.secret) expect(lines.get(s.name), s.name).toBe('');
      else if (s.default !== undefined) expect(lines.get(s.name)?.replace(/^"(.*)"$/, '$1'), s.name).toBe(s.default);
    }
    expect(lines.get('PORT')).toBe('8080');
    expect(lines.get('TRUST_PROXY')).toBe('false');
    expect(lines.get('APP_SECRET')).toBe('');
    expect(lines.size).toBe(settings().length);
  });
});

// ---------------------------------------------------------------------------------------------------

/** Files that may read process.env themselves, and why. */
const ALLOWED: Record<string, string> = {
  'apps/api/src/core/env.ts': 'the settings themselves',
  'apps/api/src/core/node-flags.ts':
    "MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_: glibc's variables, not settings; read to warn when a starter left one out (apps/api/node-flags.json)",
  'apps/web/src/pages/sites/protection/edgeInstall.ts':
    "not a read: the Node install snippet the Protection page shows, written for the customer's server",
  'packages/db/src/embedded.ts':
    "DEBUG_PG: a developer's switch printing the embedded PostgreSQL's own output; the package has no settings of its own",
};

/** `process.env`, `process['env']`, and `env` imported from `node:process`. */
const readsEnvironment = (source: string) =>
  /\bprocess\s*(\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\bfrom\s+['"](node:)?process['"]/.test(source);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sources(full);
    return /\.(ts|tsx|mts|js|mjs)$/.test(name) ? [full] : [];
  });
}

describe('who reads process.env', () => {
  it('recognises the ways a file can read it', () => {
    expect(readsEnvironment('const url = process.env.DATABASE_URL;')).toBe(true);
    expect(readsEnvironment("const url = process['env'].X;")).toBe(true);
    expect(readsEnvironment("import { env } from 'node:process';")).toBe(true);
    expect(readsEnvironment('const { env } = deps; process.exit(1);')).toBe(false);
  });

  it('only core/env.ts and the allowlist, under apps/*/src and packages/*/src', () => {
    const roots = ['apps', 'packages'].flatMap((top) =>
      readdirSync(path.join(ROOT, top)).map((name) => path.join(ROOT, top, name, 'src')),
    );
    const readers = roots
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      .flatMap(sources)
      .filter((file) => readsEnvironment(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .sort();
    // Equal, not contained: an allowlist entry whose file no longer reads it goes too.
    expect(readers).toEqual(Object.keys(ALLOWED).sort());
  });
});
