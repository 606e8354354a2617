import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envPairs, execForm, parseDockerfile } from '../../../../infra/container/reproduce-stages.ts';
import { API_NODE_FLAGS, API_PROCESS_ENV } from '../../src/core/node-flags.ts';

/**
 * What the image promises, read from the Dockerfile (no Docker on these machines; its stages run in
 * production-build.http.test.ts): three stages, the last one running as an unprivileged user with only the
 * production dependencies and the built files, a health check, a stop signal the server honours, and the
 * same Node flags `npm start` uses.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const stages = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const stage = (name: string) => stages.find((s) => s.name === name);
const args = (name: string, keyword: string) =>
  stage(name)
    ?.instructions.filter((i) => i.keyword === keyword)
    .map((i) => i.args) ?? [];
const runtime = (keyword: string) => args('runtime', keyword);

const manifest = (dir: string) => JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8'));
const workspaces = ['apps', 'packages'].flatMap((dir) =>
  readdirSync(path.join(ROOT, dir))
    .map((name) => `${dir}/${name}`)
    .filter((ws) => existsSync(path.join(ROOT, ws, 'package.json'))),
);

describe('Dockerfile', () => {
  it('has a dependencies, a build and a runtime stage, the runtime one last, on Node 24 slim', () => {
    expect(stages.map((s) => s.name)).toEqual(['deps', 'build', 'runtime']);
    expect(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^ARG NODE_IMAGE=node:24-slim$/m);
  });

  it('installs production dependencies from every workspace manifest and the lockfile, with npm ci --omit=dev', () => {
    const copied = args('deps', 'COPY').flatMap((a) => a.split(' ').slice(0, -1));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json']));
    expect(copied.filter((f) => f.includes('/')).sort()).toEqual(workspaces.map((ws) => `${ws}/package.json`).sort());
    expect(args('deps', 'RUN')).toEqual(['npm ci --omit=dev --no-audit --no-fund']);
  });

  it('ships the production dependencies and the built files of every workspace that builds, nothing else of the build', () => {
    const fromBuild = runtime('COPY')
      .filter((a) => a.startsWith('--from=build '))
      .map((a) => a.split(' ')[1]);
    const building = workspaces.filter((ws) => manifest(ws).scripts?.build);
    expect(fromBuild.sort()).toEqual(building.map((ws) => `/app/${ws}/dist`).sort());
    expect(runtime('COPY')).toContain('--from=deps /app ./');
  });

  it('runs as the unprivileged node user, health-checked on /readyz, stopped with SIGTERM', () => {
    expect(runtime('USER')).toEqual(['node']);
    expect(runtime('STOPSIGNAL')).toEqual(['SIGTERM']);
    const [healthcheck = ''] = runtime('HEALTHCHECK');
    expect(healthcheck).toMatch(/--interval=\d+s .*CMD \[/);
    expect(execForm(healthcheck.replace(/^.*?CMD /, ''))?.join(' ')).toMatch(/^node -e .*\/readyz/);
    expect(envPairs(runtime('ENV').join(' '))).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '8080' });
  });

  it("sets the API process's environment of apps/api/node-flags.json (glibc's malloc settings), as npm run start:prod does", () => {
    expect(API_PROCESS_ENV).toMatchObject({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(envPairs(runtime('ENV').join(' '))).toMatchObject(API_PROCESS_ENV);
  });

  it('starts the bundle with source maps and the V8 flags of apps/api/node-flags.json, as npm run start:prod does', () => {
    const cmd = execForm(runtime('CMD')[0] ?? '');
    expect(cmd).toEqual(['node', '--enable-source-maps', ...API_NODE_FLAGS, 'apps/api/dist/main.js']);
    // The variables first, each keeping a value the environment already has.
    const env = Object.entries(API_PROCESS_ENV).map(([k, v]) => `${k}=\${${k}:-${v}}`);
    expect(manifest('.').scripts['start:prod']).toBe([...env, ...(cmd ?? [])].join(' '));
  });

  it('leaves installs, builds, local data and secrets out of the build context', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.data', '.env', '.git']));
  });
});
