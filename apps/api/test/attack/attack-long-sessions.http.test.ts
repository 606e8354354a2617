import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { siteOfNewOwner } from '../support/sites.ts';
import { dayAgo, noonUtc } from '../support/stats-fixture.ts';
import { Visits } from '../support/visits.ts';

/**
 * Sessions of hundreds of pageviews, each with an event and an A/B exposure, on a partition the planner has
 * no figures for yet (freshly written): goal, experiment and funnel results and journeys read them well inside the stats
 * time limit. They once joined events to pageviews and sessions to completions as derived sets, and the
 * planner looped over one for every row of the other: the experiment's answer grew with the square of a
 * session's length and ran past the limit. Another site asking at the same time is answered too.
 */
describe('long sessions cannot make results run past the time limit', () => {
  let t: TestServer;
  let site: { siteId: string; auth: string };
  const SESSIONS = 10;
  const PAGES = 400;

  beforeAll(async () => {
    t = await startTestServer({ env: { STATS_TIMEOUT_MS: '4000' } });
    site = await siteOfNewOwner(t, { name: 'Long sessions', scopes: ['sites:read', 'sites:write', 'analytics:read'] });
    const post = (path: string, body: object) =>
      t.request.post(`/v1/sites/${site.siteId}${path}`).set('Authorization', site.auth).send(body).expect(201);
    await post('/goals', { name: 'Every page', type: 'path', match: '/*' });
    await post('/goals', { name: 'Signup', type: 'event', match: 'signup' });
    await post('/experiments', { key: 'hero', name: 'Hero', variants: ['a', 'b'] });
    const v = new Visits(site.siteId);
    for (let s = 0; s < SESSIONS; s++) {
      const pages = Array.from({ length: PAGES }, (_, i) => ({
        path: `/p/${i}`,
        events: ['signup'],
        exposures: { hero: s % 2 ? 'a' : 'b' },
      }));
      v.visit(noonUtc(dayAgo('UTC', 2), 4), `long-${s}`, pages);
    }
    await v.save(t);
  });
  afterAll(() => t?.close());

  const get = (path: string) => t.request.get(`/v1/sites/${site.siteId}${path}`).set('Authorization', site.auth);

  it('answers goal results with every completion and session', async () => {
    const { body } = await get('/goals/results?days=7').expect(200);
    expect(body.visits).toBe(SESSIONS);
    expect(body.goals.map((g: { completions: number; sessions: number }) => [g.completions, g.sessions])).toEqual([
      [SESSIONS * PAGES, SESSIONS],
      [SESSIONS * PAGES, SESSIONS],
    ]);
  });

  it('answers experiment results per variant, while another site is answered', async () => {
    const other = await siteOfNewOwner(t, { name: 'Other', scopes: ['sites:read', 'sites:write', 'analytics:read'] });
    const [mine, theirs] = await Promise.all([
      get('/experiments/hero/results?days=7&goal=signup'),
      t.request.get(`/v1/sites/${other.siteId}/summary?days=7`).set('Authorization', other.auth),
    ]);
    expect(theirs.status).toBe(200);
    expect(mine.status).toBe(200);
    expect(
      mine.body.variants.map((x: { variant: string; sessions: number; converted: number }) => [
        x.variant,
        x.sessions,
        x.converted,
      ]),
    ).toEqual([
      ['a', SESSIONS / 2, SESSIONS / 2],
      ['b', SESSIONS / 2, SESSIONS / 2],
    ]);
  });

  it('answers a funnel through pages and an event', async () => {
    const made = await t.request
      .post(`/v1/sites/${site.siteId}/funnels`)
      .set('Authorization', site.auth)
      .send({
        name: 'Deep',
        steps: [
          { type: 'page', match: '/p/0' },
          { type: 'event', match: 'signup' },
          { type: 'page', match: `/p/${PAGES - 1}` },
        ],
      })
      .expect(201);
    const { body } = await get(`/funnels/${made.body.funnel.id}/results?days=7`).expect(200);
    expect(body.steps.map((s: { visitors: number }) => s.visitors)).toEqual([SESSIONS, SESSIONS, SESSIONS]);
  });

  it('answers the journeys of those sessions, with the goals they reached', async () => {
    const { body } = await get('/journeys?days=7').expect(200);
    expect(body.visits).toBe(SESSIONS);
    const signup = body.goals.find((g: { name: string }) => g.name === 'Signup');
    expect(signup).toMatchObject({ sessions: SESSIONS });
    // Every session walks /p/0, /p/1, /p/2, /p/3 first: one path of all ten.
    expect(body.paths[0]).toMatchObject({ sessions: SESSIONS });
  });
});
