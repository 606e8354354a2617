import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { collectSite } from '../../support/collect.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

/** The bot-protection settings routes as the wire shows them: REST statuses and headers, MCP tools. */
describe('GET/PUT /v1/sites/{id}/bot over HTTP and MCP', () => {
  let t: TestServer;
  let site: Awaited<ReturnType<typeof collectSite>>;
  const settings = {
    mode: 'log',
    bots: 'challenge',
    rules: [{ action: 'deny', label: 'Trainers', match: { category: 'ai-training' } }],
  };

  beforeAll(async () => {
    t = await startTestServer();
    site = await collectSite(t, 'bot-wire.example', ['bot:read', 'bot:write']);
  });
  afterAll(() => t.close());

  const put = (body: unknown, key?: string) => {
    const req = t.request.put(`/v1/sites/${site.siteId}/bot`).set('Authorization', site.auth);
    if (key) req.set('Idempotency-Key', key);
    return req.send(body as object);
  };

  it('PUT answers the settings and replays a repeat with the same Idempotency-Key; another body with it is 422', async () => {
    const first = await put(settings, 'bot-put-1').expect(200);
    expect(first.body).toEqual(settings);
    const again = await put(settings, 'bot-put-1').expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectProblem(await put({ ...settings, mode: 'block' }, 'bot-put-1'), 422);
    const got = await t.request.get(`/v1/sites/${site.siteId}/bot`).set('Authorization', site.auth).expect(200);
    expect(got.body).toEqual(settings);
  });

  it('refuses with problem+json naming the field: 400, and 401 without credentials, 404 for another id', async () => {
    const empty = expectProblem(await put({ ...settings, rules: [{ action: 'deny', match: {} }] }), 400, 'rules[0].match');
    expect(empty.title).toMatch(/empty match would match everything/);
    expectProblem(
      await put({ ...settings, rules: [{ action: 'deny', match: { asn: [1, 'AS2'] } }] }),
      400,
      'rules[0].match.asn[1]',
    );
    expectProblem(await t.request.put(`/v1/sites/${site.siteId}/bot`).send(settings), 401);
    expectProblem(await t.request.get(`/v1/sites/${site.siteId}/bot`), 401);
    expectProblem(await t.request.get('/v1/sites/00000000-0000-4000-8000-000000000000/bot').set('Authorization', site.auth), 404);
    expectProblem(
      await t.request.put(`/v1/sites/${site.siteId}/bot`).set('Authorization', site.auth).query({ mode: 'off' }).send(settings),
      400,
    );
  });

  it('the MCP tools answer like REST, and a refusal is an isError result saying what to fix', async () => {
    const token = site.auth.replace(/^Bearer /, '');
    const next = { mode: 'challenge', bots: 'allow', rules: [{ action: 'challenge', match: { path: '/admin' } }] };
    const updated = await modernCall(t.url, token, 'tools/call', {
      name: 'update_site_bot',
      arguments: { id: site.siteId, ...next, idempotencyKey: 'mcp-bot-1' },
    });
    expect(updated.body.result.isError ?? false).toBe(false);
    expect(updated.body.result.structuredContent).toEqual(next);
    const got = await modernCall(t.url, token, 'tools/call', { name: 'get_site_bot', arguments: { id: site.siteId } });
    expect(got.body.result.structuredContent).toEqual(next);
    const bad = await modernCall(t.url, token, 'tools/call', {
      name: 'update_site_bot',
      arguments: { id: site.siteId, ...next, rules: [{ action: 'deny', match: { country: 'Germany' } }] },
    });
    expect(bad.body.result.isError).toBe(true);
    expect(bad.body.result.content[0].text).toMatch(/rules\[0\]\.match\.country.*two-letter country code/);
  });

  it('the OpenAPI document describes the three routes', async () => {
    const doc = (await t.request.get('/v1/openapi.json').expect(200)).body;
    expect(Object.keys(doc.paths['/v1/sites/{id}/bot'])).toEqual(expect.arrayContaining(['get', 'put']));
    expect(doc.paths['/v1/sites/{id}/bot/decisions'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['id', 'days']),
    );
  });
});
