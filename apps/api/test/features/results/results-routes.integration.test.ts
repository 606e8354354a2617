// What only the wire shows for the results routes: every refusal they can answer, the route table
// (GET /goals/results beside DELETE /goals/{goal}), the reserved goal id, and the same answers over MCP.
import { randomUUID } from 'node:crypto';
import { goalIdOf } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bySpecificity } from '../../../src/faces/rest/routes.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { createToken } from '../../support/server.ts';
import { dayAgo, noonUtc, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';
import { Visits } from '../../support/visits.ts';

const GOALS = [{ id: 'signed-up', name: 'Signed up', type: 'event', match: 'signup' }];
const EXPERIMENTS = [{ key: 'hero', variants: ['a', 'b'], status: 'running' }];

describe('results routes on the wire', () => {
  let f: StatsFixture;
  let siteId: string;
  let writer: string;
  let noScope: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site({ settings: { goals: GOALS, experiments: EXPERIMENTS } });
    const at = noonUtc(dayAgo('UTC', 1));
    const v = new Visits(siteId);
    for (let i = 0; i < 12; i++) {
      const page = { path: '/', exposures: { hero: i % 2 ? 'a' : 'b' }, events: i % 3 ? [] : ['signup'] };
      v.visit(new Date(at.getTime() + i * 1000), `v${i}`, [page]);
    }
    await v.save(f.t);
    const ids = { userId: f.userId, workspaceId: f.workspaceId };
    writer = `Bearer ${(await createToken(f.t.deps, { ...ids, scopes: ['sites:write', 'sites:read'] })).token}`;
    noScope = `Bearer ${(await createToken(f.t.deps, { ...ids, scopes: ['sites:read'] })).token}`;
  });
  afterAll(() => f.close());

  const goalsPath = () => `/v1/sites/${siteId}/goals/results`;
  const expPath = (key = 'hero') => `/v1/sites/${siteId}/experiments/${key}/results`;

  describe('refusals', () => {
    it.each([
      ['goals', 'days=0', 'days'],
      ['goals', 'days=3661', 'days'],
      ['goals', 'days=soon', 'days'],
      ['goals', 'limit=3', 'limit'],
      ['experiment', 'days=91', 'days'],
      ['experiment', 'goal=nope', 'goal'],
      ['experiment', 'colour=red', 'colour'],
    ])('%s ?%s is 400 naming %s', async (route, query, field) => {
      const res = await f.t.request
        .get(`${route === 'goals' ? goalsPath() : expPath()}?${query}`)
        .set('Authorization', f.auth)
        .expect(400)
        .expect('content-type', /problem\+json/);
      expect(res.body.field).toBe(field);
    });

    it.each(['goals', 'experiment'])(
      '%s: no credentials is 401, a token without analytics:read is 403 naming it',
      async (route) => {
        const path = route === 'goals' ? goalsPath() : expPath();
        await f.t.request
          .get(path)
          .expect(401)
          .expect('content-type', /problem\+json/);
        const res = await f.t.request.get(path).set('Authorization', noScope).expect(403);
        expect(res.body.title).toContain('analytics:read');
      },
    );

    it.each(['goals', 'experiment'])('%s: an unknown site is 404', async (route) => {
      const path = route === 'goals' ? '/v1/sites/{id}/goals/results' : '/v1/sites/{id}/experiments/hero/results';
      const res = await f.get(path.replace('{id}', randomUUID())).expect(404);
      expect(res.body.title).toMatch(/No such site/);
    });

    it('an unknown experiment key is 404', async () => {
      const res = await f
        .get(expPath('nope'))
        .expect(404)
        .expect('content-type', /problem\+json/);
      expect(res.body.title).toMatch(/No such experiment/);
    });
  });

  describe('the route table', () => {
    it('literal segments are tried before parameters', () => {
      const paths = ['/v1/sites/{id}/goals/{goal}', '/v1/sites/{id}/goals/results', '/v1/sites/{id}'];
      expect([...paths].sort(bySpecificity)[0]).toBe('/v1/sites/{id}');
      expect(bySpecificity('/v1/sites/{id}/goals/results', '/v1/sites/{id}/goals/{goal}')).toBeLessThan(0);
    });

    it('a goal named Results gets the id results-1', () => {
      expect(goalIdOf('Results')).toBe('results-1');
      expect(goalIdOf(' results! ')).toBe('results-1');
      expect(goalIdOf('Results page')).toBe('results-page');
    });

    it('GET /goals/results answers results while DELETE /goals/{goal} still removes goals, results-1 included', async () => {
      const site = await f.site({ settings: { goals: GOALS } });
      const created = await f.t.request
        .post(`/v1/sites/${site}/goals`)
        .set('Authorization', writer)
        .send({ name: 'Results', type: 'path', match: '/results' })
        .expect(201);
      expect(created.body.goal.id).toBe('results-1');
      const results = await f.get(`/v1/sites/${site}/goals/results`).expect(200);
      expect(results.body.goals.map((g: { id: string }) => g.id)).toEqual(['signed-up', 'results-1']);
      // DELETE of the literal word is the goal route, not a method mismatch: no goal has that id.
      const wrong = await f.t.request.delete(`/v1/sites/${site}/goals/results`).set('Authorization', writer).expect(404);
      expect(wrong.body.title).toMatch(/No such goal/);
      await f.t.request.delete(`/v1/sites/${site}/goals/results-1`).set('Authorization', writer).expect(204);
      await f.t.request.delete(`/v1/sites/${site}/goals/signed-up`).set('Authorization', writer).expect(204);
      const after = await f.get(`/v1/sites/${site}/goals/results`).expect(200);
      expect(after.body.goals).toEqual([]);
    });
  });

  describe('MCP', () => {
    const token = () => f.auth.replace('Bearer ', '');

    it('get_site_goal_results answers what REST answers', async () => {
      const rest = await f.get(goalsPath(), { days: 3 }).expect(200);
      const res = await modernCall(f.t.url, token(), 'tools/call', {
        name: 'get_site_goal_results',
        arguments: { id: siteId, days: 3 },
      });
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBeFalsy();
      expect(res.body.result.structuredContent).toEqual(rest.body);
      expect(rest.body.goals[0]).toMatchObject({ completions: 4, sessions: 4, visits: 12 });
    });

    it('get_site_experiment_results answers what REST answers, and refuses an unknown goal naming it', async () => {
      const rest = await f.get(expPath(), { goal: 'signed-up' }).expect(200);
      const call = (args: Record<string, unknown>) =>
        modernCall(f.t.url, token(), 'tools/call', {
          name: 'get_site_experiment_results',
          arguments: { id: siteId, key: 'hero', ...args },
        });
      const res = await call({ goal: 'signed-up' });
      expect(res.body.result.structuredContent).toEqual(rest.body);
      expect(rest.body.variants.map((v: { sessions: number }) => v.sessions)).toEqual([6, 6]);
      const bad = await call({ goal: 'nope' });
      expect(bad.body.result.isError).toBe(true);
      expect(bad.body.result.structuredContent).toMatchObject({ status: 400, field: 'goal' });
    });
  });
});
