import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { addSessions, emptyRows, insertJourneys } from '../../support/journeys-fixture.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { createToken } from '../../support/server.ts';
import { dayAgo, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('journeys over the wire', () => {
  let f: StatsFixture;
  let siteId: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    const rows = emptyRows();
    addSessions(rows, siteId, { day: dayAgo('UTC', 1), pages: ['/', '/pricing'] }, 5);
    await insertJourneys(f.t.deps.orm, rows);
  });
  afterAll(() => f.close());

  const path = () => `/v1/sites/${siteId}/journeys`;

  it('refuses bad values with problem+json naming the field', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ zoom: 'site' }, 'zoom'],
      [{ who: 'bot' }, 'who'],
      [{ days: '0' }, 'days'],
      [{ days: '91' }, 'days'],
      [{ days: 'seven' }, 'days'],
      [{ anchor: 'x'.repeat(2049) }, 'anchor'],
      [{ zoom: 'page', anchor: 'pricing' }, 'anchor'],
      [{ anchor: '/blog/post-1' }, 'anchor'],
      [{ zoom: 'element', anchor: 'b'.repeat(129) }, 'anchor'],
      [{ from: '2026-02-30' }, 'from'],
      [{ from: '2000-01-01' }, 'from'],
      [{ days: '7', from: '2026-01-01' }, 'days'],
      // Days to come: each would be stored as an empty day.
      [{ from: dayAgo('UTC', 0), to: dayAgo('UTC', -400) }, 'to'],
    ];
    for (const [query, field] of cases) expectProblem(await f.get(path(), query), 400, field);
    const unknown = expectProblem(await f.get(path(), { lane: 'human' }), 400);
    expect(unknown.field).toBe('lane');
  });

  // The defect: paths are stored percent-encoded, as goals know; an anchor typed with the letters themselves was
  // compared as typed and never reached.
  it('reads an anchor typed with non-ASCII letters as the paths are stored', async () => {
    const site = await f.site();
    const rows = emptyRows();
    addSessions(rows, site, { day: dayAgo('UTC', 1), pages: ['/', '/caf%C3%A9', '/menu'] }, 5);
    await insertJourneys(f.t.deps.orm, rows);
    for (const zoom of ['page', 'section']) {
      const anchor = '/café';
      const res = await f.get(`/v1/sites/${site}/journeys`, { zoom, anchor, days: 3 }).expect(200);
      expect(res.body.flow.links, `${zoom} ${anchor}`).toContainEqual(
        expect.objectContaining({ target: '0:/caf%C3%A9', sessions: 5 }),
      );
    }
  });

  it('401 without credentials, 403 naming analytics:read, 404 for an unknown site', async () => {
    expectProblem(await f.t.request.get(path()), 401);
    const { token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:read'] });
    const forbidden = expectProblem(await f.t.request.get(path()).set('Authorization', `Bearer ${token}`), 403);
    expect(forbidden.title).toContain('analytics:read');
    expectProblem(await f.get('/v1/sites/00000000-0000-4000-8000-000000000000/journeys'), 404);
  });

  it('the MCP tool get_site_journeys answers as REST does', async () => {
    const rest = (await f.get(path(), { zoom: 'page', days: 3 }).expect(200)).body;
    expect(rest.flow.links).toEqual([{ source: '0:/', target: '1:/pricing', sessions: 5 }]);
    const token = f.auth.replace(/^Bearer /, '');
    const mcp = await modernCall(f.t.url, token, 'tools/call', {
      name: 'get_site_journeys',
      arguments: { id: siteId, zoom: 'page', days: 3 },
    });
    expect(mcp.body.result.isError ?? false).toBe(false);
    expect(mcp.body.result.structuredContent).toEqual(rest);
    const bad = await modernCall(f.t.url, token, 'tools/call', {
      name: 'get_site_journeys',
      arguments: { id: siteId, zoom: 'x' },
    });
    expect(bad.body.result.isError).toBe(true);
    expect(bad.body.result.content[0].text).toMatch(/zoom/);
  });

  it('the OpenAPI document lists the route with its query parameters', async () => {
    const doc = (await f.t.request.get('/v1/openapi.json').expect(200)).body;
    const op = doc.paths['/v1/sites/{id}/journeys'].get;
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['id', 'days', 'from', 'to', 'zoom', 'who', 'anchor']),
    );
    const zoom = op.parameters.find((p: { name: string }) => p.name === 'zoom');
    expect(zoom.schema.enum).toEqual(['page', 'section', 'element']);
  });
});
