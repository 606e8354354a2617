import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { insertRows } from '@us/db';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../support/run.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ownerWithSite } from '../support/sites.ts';

const REPO = path.resolve(import.meta.dirname, '../../../..');
const EXAMPLE = path.join(import.meta.dirname, 'typed-client.example.ts');

/**
 * The typed client of docs/api/clients.md, as an integrator would make it: types generated with
 * openapi-typescript from this server's live /v1/openapi.json, the page's example typechecked against them
 * with tsc (strict), then run against the server with openapi-fetch.
 */
describe('the typed client recipe', () => {
  let t: TestServer;
  const work = mkdtempSync(path.join(tmpdir(), 'typed-client-'));
  beforeAll(async () => {
    t = await startTestServer();
    // The integrator's project: the example and the generated types, with the repository's packages.
    symlinkSync(path.join(REPO, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    copyFileSync(EXAMPLE, path.join(work, 'example.ts'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('runs the page’s first curl calls as written, each answered 2xx', { timeout: 60_000 }, async () => {
    const page = readFileSync(path.join(REPO, 'docs/api/clients.md'), 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
    expect(block).toContain('curl');
    const owner = await ownerWithSite(t, { scopes: ['sites:read', 'analytics:read'], siteName: 'Curl shop' });
    // The reader's own values in place of the placeholders; curl fails on any answer that is not 2xx.
    const script = block
      .replace(/^export UNSEEN=.*$/m, `export UNSEEN=${t.url} TOKEN=${owner.token}`)
      .replaceAll('SITE_ID', owner.site.id);
    const calls = await run('bash', [
      '-c',
      `set -euo pipefail\ncurl() { command curl -sS --fail-with-body -o /dev/null "$@"; }\n${script}`,
    ]);
    expect(calls.stderr).toBe('');
    expect(calls.status).toBe(0);
  });

  it('is the example docs/api/clients.md and the README show', () => {
    for (const doc of ['docs/api/clients.md', 'README.md']) {
      expect(readFileSync(path.join(REPO, doc), 'utf8'), doc).toContain(readFileSync(EXAMPLE, 'utf8').trim());
    }
  });

  it('typechecks against types generated from the live document, and reads a site’s summary', { timeout: 120_000 }, async () => {
    const document = (await fetch(`${t.url}/v1/openapi.json`).then((r) => r.json())) as OpenAPI3;
    writeFileSync(path.join(work, 'unseen-api.d.ts'), astToString(await openapiTS(document)));

    const tsc = await run(
      process.execPath,
      [
        path.join(REPO, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--noUncheckedIndexedAccess',
        '--target',
        'es2022',
        '--module',
        'preserve',
        '--moduleResolution',
        'bundler',
        '--types',
        'node',
        'example.ts',
      ],
      { cwd: work },
    );
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
    expect(tsc.status).toBe(0);

    const owner = await ownerWithSite(t, { scopes: ['analytics:read'], siteName: 'Typed shop' });
    const at = new Date(Date.now() - 86_400_000);
    await insertRows(t.deps.orm, 'pageviews', [
      {
        siteId: owner.site.id,
        at,
        pageviewId: 'pv-typed-1',
        visitor: 'v-typed',
        sessionStart: true,
        lane: 'human',
        path: '/',
        referrerHost: null,
        country: null,
        device: 'desktop',
      },
    ]);
    const example = await run(process.execPath, ['--import', 'tsx', 'example.ts'], {
      cwd: work,
      env: { ...process.env, UNSEEN_URL: t.url, UNSEEN_TOKEN: owner.token, UNSEEN_SITE: owner.site.id },
    });
    expect(example.stderr).toBe('');
    expect(example.stdout).toMatch(/^\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: 1 sessions, bounce rate \d+/);
  });
});
