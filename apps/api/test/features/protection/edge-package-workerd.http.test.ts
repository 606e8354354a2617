import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EDGE_DIR, ensureEdgeBuild } from '../../../../../packages/edge/test/built.ts';
import { type GateSite, gateSite } from '../../support/gate.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * The published package as a customer gets it: `npm pack` of packages/edge, unpacked into a plain Workers
 * project in a temporary folder (package.json, wrangler.toml, src/worker.js) that has nothing else of this
 * repository. Its worker runs in real workerd (miniflare) in front of a stand-in origin, against the real service.
 */
describe('the packed edge SDK in a plain Workers project', () => {
  let t: TestServer;
  let site: GateSite;
  let origin: Server;
  let edge: Miniflare;
  let project = '';

  const visit = async (p: string, ip: string) => {
    const res = await edge.dispatchFetch(`https://${site.hostname}${p}`, {
      headers: { 'user-agent': BROWSER, 'cf-connecting-ip': ip, accept: 'text/html', 'sec-fetch-mode': 'navigate' },
    });
    return { status: res.status, text: await res.text() };
  };
  const report = async () =>
    (await t.request.get(`/v1/sites/${site.siteId}/bot/decisions`).query({ days: 1 }).set('Authorization', site.auth).expect(200))
      .body as { totals: Record<string, number>; rows: { action: string; reason: string; count: number }[] };

  beforeAll(async () => {
    ensureEdgeBuild();
    project = mkdtempSync(path.join(tmpdir(), 'us-workers-project-'));
    const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], EDGE_DIR)) as {
      filename: string;
      files: { path: string }[];
    }[];
    const tarball = packed[0] as (typeof packed)[number];
    // Only what `files` names goes out: no source, no tests, no configuration.
    expect(tarball.files.map((f) => f.path).filter((p) => !p.startsWith('dist/'))).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'package.json']),
    );
    expect(tarball.files.every((f) => /^(dist\/[^/]+\.(js|d\.ts)|LICENSE|README\.md|package\.json)$/.test(f.path))).toBe(true);
    mkdirSync(path.join(project, 'node_modules/@unseen-stats'), { recursive: true });
    run(
      'tar',
      ['-xzf', path.join(project, path.basename(tarball.filename)), '-C', path.join(project, 'node_modules/@unseen-stats')],
      project,
    );
    renameSync(path.join(project, 'node_modules/@unseen-stats/package'), path.join(project, 'node_modules/@unseen-stats/edge'));

    t = await startTestServer();
    site = await gateSite(t, 'packed-edge.example', {
      mode: 'block',
      bots: 'allow',
      rules: [{ action: 'deny', label: 'No admin', match: { path: '/admin' } }],
    });
    origin = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`origin ${req.url}`));
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const originBase = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop-worker', private: true, type: 'module' }));
    writeFileSync(
      path.join(project, 'wrangler.toml'),
      `name = "shop-worker"\nmain = "src/worker.js"\ncompatibility_date = "2024-09-23"\n\n[vars]\nSVC_SITE_KEY = "${site.publicKey}"\nSVC_COLLECT_URL = "${t.url}/collect"\n`,
    );
    mkdirSync(path.join(project, 'src'));
    // workerd loads ES modules by path: the worker imports the package's built entry file itself.
    writeFileSync(
      path.join(project, 'src/worker.js'),
      `import { withUnseen } from '../node_modules/@unseen-stats/edge/dist/index.js';
export default withUnseen(async (request) => {
  const url = new URL(request.url);
  return fetch(${JSON.stringify(originBase)} + url.pathname + url.search);
}, { batchSize: 1 });
`,
    );
    edge = new Miniflare({
      modules: true,
      modulesRoot: project,
      scriptPath: path.join(project, 'src/worker.js'),
      // As wrangler takes them: .js files are ES modules.
      modulesRules: [{ type: 'ESModule', include: ['**/*.js'] }],
      bindings: { SVC_SECRET: site.secret, SVC_SITE_KEY: site.publicKey, SVC_COLLECT_URL: `${t.url}/collect` },
      compatibilityDate: '2024-09-23',
    });
    await edge.ready;
    // The isolate decides once it holds the site's config (the first requests fail open while it loads).
    await vi.waitFor(async () => expect((await visit('/admin', '198.51.100.90')).status).toBe(403), {
      timeout: 15_000,
      interval: 50,
    });
  }, 180_000);
  afterAll(async () => {
    await edge?.dispose();
    origin?.closeAllConnections();
    await new Promise((r) => origin?.close(r));
    await t?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('holds no file of the repository but the packed package', () => {
    const files = readdirSync(project, { recursive: true, encoding: 'utf8' }).filter((f) => !f.endsWith('.tgz'));
    expect(
      files.filter(
        (f) => !f.startsWith('node_modules') && !['src', 'src/worker.js', 'package.json', 'wrangler.toml'].includes(f),
      ),
    ).toEqual([]);
    expect(files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
  });

  it('decides in the worker and the service records the decisions', async () => {
    const ip = '198.51.100.91';
    expect(await visit('/', ip)).toEqual({ status: 200, text: 'origin /' });
    const refused = await visit('/admin', ip);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Access refused');
    await expect
      .poll(async () => (await report()).rows.map((r) => [r.action, r.reason]), { timeout: 15_000 })
      .toEqual(
        expect.arrayContaining([
          ['deny', 'rule: No admin'],
          ['allow', 'browser: no sign of automation'],
        ]),
      );
  });

  it('resolves by package name in Node, with declarations TypeScript accepts', () => {
    const resolved = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `for (const s of ['@unseen-stats/edge', '@unseen-stats/edge/node', '@unseen-stats/edge/protect']) {
  const m = await import(s);
  console.log(s, import.meta.resolve(s), Object.keys(m).sort().join(','));
}`,
      ],
      project,
    );
    for (const line of resolved.trim().split('\n'))
      expect(line).toContain(`file://${path.join(project, 'node_modules/@unseen-stats/edge/dist/')}`);
    expect(resolved).toMatch(/@unseen-stats\/edge\/node \S+ .*\bprotectMiddleware\b/);
    expect(resolved).toMatch(/@unseen-stats\/edge \S+ .*\bwithUnseen\b/);

    writeFileSync(
      path.join(project, 'check.ts'),
      `import { withUnseen, type UnseenEnv } from '@unseen-stats/edge';
import { protectMiddleware, type ProtectVerdict } from '@unseen-stats/edge/node';
const worker = withUnseen<UnseenEnv>(async () => new Response('ok'), { batchSize: 5 });
const gate = protectMiddleware({ secret: 'sk_live_x', key: 'pk_x', collectUrl: 'https://collect.example/collect' });
export const used: [typeof worker.fetch, typeof gate.flush, ProtectVerdict['do']] = [worker.fetch, gate.flush, 'serve'];
`,
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022', lib: ['es2023', 'dom'], types: [] },
        files: ['check.ts'],
      }),
    );
    run(process.execPath, [path.resolve(EDGE_DIR, '../../node_modules/typescript/bin/tsc'), '-p', '.'], project);
  });
});
