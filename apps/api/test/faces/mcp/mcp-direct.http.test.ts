import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directCallOf } from '../../../src/faces/mcp/direct-call.ts';
import { mcpHandler } from '../../../src/faces/mcp/handler.ts';
import { buildTools } from '../../../src/faces/mcp/tools.ts';
import { listOperations } from '../../../src/procedures/registry.ts';
import { appRouter } from '../../../src/router.ts';
import { collectSite } from '../../support/collect.ts';
import { envelope, MODERN, postMcp } from '../../support/mcp-http.ts';
import type { TestServer } from '../../support/server.ts';
import { startTestServer } from '../../support/server.ts';

/**
 * A plain 2026-07-28 tool call is answered without the SDK's per-request server (`faces/mcp/direct-call.ts`).
 * The same requests go to the real server and to an MCP face that always hands them to the SDK (same
 * dependencies, same database): status, content type and body must be the same.
 */
describe('MCP tool calls answered directly, as the SDK answers them', () => {
  let t: TestServer;
  let sdkUrl: string;
  let sdkServer: ReturnType<Koa['listen']>;
  let site: Awaited<ReturnType<typeof collectSite>>;
  let token: string;
  const tools = buildTools(listOperations(appRouter));

  beforeAll(async () => {
    t = await startTestServer();
    site = await collectSite(t, 'mcp-direct.example', ['bot:read', 'bot:write']);
    token = site.auth.replace(/^Bearer /, '');
    const app = new Koa();
    const sdkOnly = mcpHandler(t.deps, listOperations(appRouter), { sdkOnly: true });
    app.use((ctx) => sdkOnly(ctx));
    sdkServer = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => sdkServer.once('listening', resolve));
    sdkUrl = `http://127.0.0.1:${(sdkServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    sdkServer?.close();
    await t?.close();
  });

  const headersFor = (name: string) => ({
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': name,
  });
  const call = (name: string, args?: unknown, id: unknown = 7) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, ...(args === undefined ? {} : { arguments: args }), _meta: envelope() },
  });

  async function both(body: unknown, headers: Record<string, string>) {
    const [direct, sdk] = await Promise.all([postMcp(t.url, body, headers), postMcp(sdkUrl, body, headers)]);
    expect({ status: direct.status, type: direct.headers.get('content-type'), body: direct.body }).toEqual({
      status: sdk.status,
      type: sdk.headers.get('content-type'),
      body: sdk.body,
    });
    return direct;
  }

  // The attack: a header of 16 KB with a run of tabs inside. Trimmed by a pattern anchored at the end, each run was
  // tried again from each of its tabs: ~0.2 s of the event loop a call, for any token holder.
  it('reads headers with long runs of tabs inside in one pass: 200 calls of 16 KB headers', () => {
    const inner = `a${'\t'.repeat(16_000)}b`;
    for (let i = 0; i < 200; i++) {
      const headers = { ...headersFor('get_me'), [['mcp-protocol-version', 'mcp-method', 'mcp-name'][i % 3] as string]: inner };
      expect(directCallOf(headers, call('get_me'), tools)).toBeUndefined();
    }
    expect(directCallOf({ ...headersFor('get_me'), 'mcp-name': ' \tget_me\t ' }, call('get_me'), tools)).toBeDefined();
  });

  it('get_me, with and without arguments, numeric and string ids: the same answer, with resultType and serverInfo', async () => {
    for (const body of [call('get_me', {}), call('get_me'), call('get_me', {}, 'call-1')]) {
      expect(directCallOf(headersFor('get_me'), body, tools)).toBeDefined();
      const res = await both(body, headersFor('get_me'));
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        resultType: 'complete',
        structuredContent: { actor: { type: 'token' } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'unseen-stats' } },
      });
    }
  });

  it('a tool with arguments, a refusal (isError) and a replayed idempotent call answer alike', async () => {
    const settings = { id: site.siteId, mode: 'log', bots: 'allow', rules: [] };
    const headers = headersFor('update_site_bot');
    // A refusal the tool reports: the same isError result both ways.
    const bad = await both(call('update_site_bot', { ...settings, mode: 'loud' }), headers);
    expect(bad.body.result.isError).toBe(true);
    await both(call('get_site_bot', { id: site.siteId }), headersFor('get_site_bot'));
    // The first call with a key stores the answer; the second, either way, replays it with _meta merged.
    const first = await postMcp(t.url, call('update_site_bot', { ...settings, idempotencyKey: 'direct-1' }), headers);
    expect(first.body.result.isError ?? false).toBe(false);
    const replay = await both(call('update_site_bot', { ...settings, idempotencyKey: 'direct-1' }), headers);
    expect(replay.body.result._meta).toEqual({
      idempotentReplayed: true,
      'io.modelcontextprotocol/serverInfo': { name: 'unseen-stats', version: '1.0.0' },
    });
  });

  it('anything else goes to the SDK and is answered by it: headers missing or disagreeing, odd shapes, unknown tools', async () => {
    const cases: [string, unknown, Record<string, string>][] = [
      ['unknown tool', call('no_such_tool', {}), headersFor('no_such_tool')],
      ['Mcp-Name disagreeing', call('get_me', {}), headersFor('get_site')],
      ['Mcp-Name missing', call('get_me', {}), { ...headersFor('get_me'), 'mcp-name': '' }],
      ['version header disagreeing', call('get_me', {}), { ...headersFor('get_me'), 'mcp-protocol-version': '2025-11-25' }],
      ['arguments not an object', call('get_me', [1]), headersFor('get_me')],
      ['id null', call('get_me', {}, null), headersFor('get_me')],
      ['a key the call does not know', { ...call('get_me', {}), extra: 1 }, headersFor('get_me')],
      [
        'envelope naming another version',
        { ...call('get_me', {}), params: { name: 'get_me', _meta: envelope('2099-01-01') } },
        headersFor('get_me'),
      ],
      [
        'a malformed envelope',
        { ...call('get_me', {}), params: { name: 'get_me', _meta: { ...envelope(), 'io.modelcontextprotocol/clientInfo': 5 } } },
        headersFor('get_me'),
      ],
      [
        'a progress token',
        { ...call('get_me', {}), params: { name: 'get_me', _meta: { ...envelope(), progressToken: 1 } } },
        headersFor('get_me'),
      ],
    ];
    for (const [what, body, headers] of cases) {
      const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ''));
      expect(directCallOf(clean, body, tools), what).toBeUndefined();
      await both(body, clean);
    }
  });
});
