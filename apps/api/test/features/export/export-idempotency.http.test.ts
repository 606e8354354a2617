// An export spends the hourly budget (5 per site): like every other state-changing operation it takes
// an Idempotency-Key (REST) / idempotencyKey (MCP), and a repeat within 24 hours answers the first export
// without spending the budget again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportAnswer } from '../../support/download.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { createToken } from '../../support/server.ts';
import { type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('export idempotency', () => {
  let f: StatsFixture;
  let token: string;

  beforeAll(async () => {
    f = await statsFixture();
    ({ token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['export:read'] }));
  });
  afterAll(() => f.close());

  const rest = (siteId: string, key?: string, body: Record<string, unknown> = {}) => {
    const req = f.t.request.post(`/v1/sites/${siteId}/export`).set('Authorization', `Bearer ${token}`);
    if (key) req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const tool = (args: Record<string, unknown>) =>
    modernCall(f.t.url, token, 'tools/call', { name: 'export_site', arguments: args });

  it('REST: a repeat with the same Idempotency-Key answers the first export and leaves the budget alone', async () => {
    const siteId = await f.site();
    const first = await rest(siteId, 'export-once').expect(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    for (let i = 0; i < 6; i++) {
      const again = await rest(siteId, 'export-once').expect(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect((again.body as ExportAnswer).id).toBe((first.body as ExportAnswer).id);
    }
    // The repeats spent nothing: four more exports fit in the site's five an hour, the sixth does not.
    for (let i = 0; i < 4; i++) await rest(siteId).expect(200);
    const over = await rest(siteId).expect(429);
    expect(over.body.title).toMatch(/site/i);
    // The same key with another request is refused.
    const other = await rest(siteId, 'export-once', { from: '2026-11-01' }).expect(422);
    expect(other.body.title).toMatch(/different request/);
    const doc = (await f.t.request.get('/v1/openapi.json').expect(200)).body;
    const params = doc.paths['/v1/sites/{id}/export'].post.parameters.map((p: { name: string }) => p.name);
    expect(params).toContain('Idempotency-Key');
  });

  it('MCP: export_site takes idempotencyKey; a repeat answers the first export, marked replayed', async () => {
    const siteId = await f.site();
    const first = await tool({ id: siteId, idempotencyKey: 'mcp-export-1' });
    expect(first.body.result.isError ?? false).toBe(false);
    const id = first.body.result.structuredContent.id as string;
    for (let i = 0; i < 6; i++) {
      const again = await tool({ id: siteId, idempotencyKey: 'mcp-export-1' });
      expect(again.body.result.isError ?? false).toBe(false);
      expect(again.body.result.structuredContent.id).toBe(id);
      expect(again.body.result._meta).toMatchObject({ idempotentReplayed: true });
    }
    for (let i = 0; i < 4; i++) expect((await tool({ id: siteId })).body.result.isError ?? false).toBe(false);
    const over = await tool({ id: siteId, idempotencyKey: 'mcp-export-2' });
    expect(over.body.result.isError).toBe(true);
    expect(over.body.result.content[0].text).toMatch(/5 exports an hour/);
    const listed = await modernCall(f.t.url, token, 'tools/list', {});
    const exportTool = listed.body.result.tools.find((x: { name: string }) => x.name === 'export_site');
    expect(exportTool.inputSchema.properties).toHaveProperty('idempotencyKey');
    expect(exportTool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });
});
