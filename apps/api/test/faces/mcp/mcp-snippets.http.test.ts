import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mcpClientSnippets } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../support/run.ts';
import { ownerWithToken, startTestServer, type TestServer } from '../../support/server.ts';

const REPO = path.resolve(import.meta.dirname, '../../../../..');

/** The MCP connection snippets the token page shows and docs/api/mcp.md prints: the same, and they work. */
describe('MCP connection snippets', () => {
  let t: TestServer;
  const work = mkdtempSync(path.join(tmpdir(), 'mcp-snippet-'));
  beforeAll(async () => {
    t = await startTestServer();
    symlinkSync(path.join(REPO, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('are printed in docs/api/mcp.md as the dashboard builds them, each config file valid JSON', () => {
    const page = readFileSync(path.join(REPO, 'docs/api/mcp.md'), 'utf8');
    const snippets = mcpClientSnippets('https://stats.example.com/mcp', 'YOUR_API_TOKEN');
    expect(snippets.map((s) => s.client)).toEqual([
      'Claude Code',
      'Claude Desktop',
      'Cursor',
      'VS Code',
      'Official SDK (TypeScript)',
    ]);
    for (const s of snippets) {
      expect(page, s.client).toContain(s.code);
      expect(s.code, s.client).toContain('Bearer YOUR_API_TOKEN');
      if (s.language === 'json') expect(() => JSON.parse(s.code), s.client).not.toThrow();
    }
  });

  it('the official SDK snippet, as written, lists the tools and calls one as the token', { timeout: 60_000 }, async () => {
    const owner = await ownerWithToken(t.deps, ['sites:read']);
    const sdk = mcpClientSnippets(`${t.url}/mcp`, owner.token).find((s) => s.id === 'sdk');
    writeFileSync(path.join(work, 'connect.ts'), sdk?.code ?? '');
    const answer = await run(process.execPath, ['--import', 'tsx', 'connect.ts'], { cwd: work });
    expect(answer.stderr).toBe('');
    expect(answer.status).toBe(0);
    expect(answer.stdout).toContain("'list_sites'");
    expect(answer.stdout).toMatch(/actor: \{ type: 'token'|"actor":\{"type":"token"/);
  });
});
