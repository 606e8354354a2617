import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';

/** The official SDK clients (v2 and v1) against /mcp with a bearer token, as an agent would connect. */
describe('MCP through the official SDK clients', () => {
  let t: TestServer;
  let token: string;
  let tokenId: string;
  let workspaceId: string;
  beforeAll(async () => {
    t = await startTestServer();
    const owner = await createUser(t.deps);
    workspaceId = owner.workspace.id;
    ({ token, id: tokenId } = await createToken(t.deps, { userId: owner.user.id, workspaceId, scopes: [] }));
  });
  afterAll(() => t.close());

  const expectTokenActor = (answer: unknown) => {
    const result = answer as { structuredContent?: unknown; content?: unknown; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ actor: { type: 'token', id: tokenId }, workspaceId, role: null });
    const [first] = result.content as { type: string; text: string }[];
    expect(JSON.parse(first?.text ?? '')).toEqual(result.structuredContent);
  };

  it.each([
    ['2026-07-28 (pinned)', { mode: { pin: '2026-07-28' } }, '2026-07-28'],
    ['auto negotiation', { mode: 'auto' }, '2026-07-28'],
    ['2025 initialize handshake', { mode: 'legacy' }, '2025-11-25'],
  ] as const)('v2 client, %s: tools/list and get_me', async (_label, versionNegotiation, version) => {
    const client = new Client({ name: 'unseen-test', version: '1.0.0' }, { versionNegotiation });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('get_me');
      expectTokenActor(await client.callTool({ name: 'get_me', arguments: {} }));
      expect(transport.sessionId).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('v1 client (2025-11-25): tools/list and get_me', async () => {
    const client = new V1Client({ name: 'unseen-test-v1', version: '1.0.0' });
    const transport = new V1Transport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'unseen-stats' });
      expect(transport.protocolVersion).toBe('2025-11-25');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('get_me');
      expectTokenActor(await client.callTool({ name: 'get_me', arguments: {} }));
      expect(transport.sessionId).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('v1 client without a token cannot connect', async () => {
    const client = new V1Client({ name: 'unseen-test-v1', version: '1.0.0' });
    await expect(client.connect(new V1Transport(new URL(`${t.url}/mcp`)))).rejects.toThrow();
  });
});
