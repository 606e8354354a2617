// Funnels over HTTP: saving them (limits and refusals by field) and how People moved through one, against
// visits built with known answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../support/server.ts';
import { dayAgo, noonUtc, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';
import { tokenApi } from '../../support/token-api.ts';
import { Visits } from '../../support/visits.ts';

const STEPS = [
  { type: 'page', match: '/' },
  { type: 'page', match: '/pricing*' },
  { type: 'event', match: 'signup' },
];

describe('funnels', () => {
  let f: StatsFixture;
  let siteId: string;
  let auth: string;
  const api = () => tokenApi(f.t, () => auth);

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    const { token } = await createToken(f.t.deps, {
      userId: f.userId,
      workspaceId: f.workspaceId,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    auth = `Bearer ${token}`;
    const v = new Visits(siteId);
    const at = noonUtc(dayAgo('UTC', 2));
    let n = 0;
    const visit = (pages: Parameters<Visits['visit']>[2], times: number, opts = {}) => {
      for (let i = 0; i < times; i++) v.visit(new Date(at.getTime() + ++n * 1000), `fv-${n}`, pages, opts);
    };
    // Pages a minute apart; an event a second after its pageview.
    visit(['/', '/pricing/team', { path: '/signup', events: ['signup'] }], 30);
    visit(['/', '/pricing'], 20);
    visit(['/'], 10);
    // The right pages in the wrong order: they enter but never reach /pricing after /.
    visit(['/pricing', '/'], 5);
    // /pricing in a later session of the same visitor-day: not the same session.
    for (let i = 0; i < 3; i++) {
      n += 1;
      v.visit(new Date(at.getTime() + n * 1000), `fv-late-${i}`, ['/']);
      v.visit(new Date(at.getTime() + n * 1000 + 3600_000), `fv-late-${i}`, ['/pricing']);
    }
    // Bots are not People.
    visit(['/', '/pricing', { path: '/signup', events: ['signup'] }], 7, { lane: 'bot' });
    // Three visitors reach /rare: too few to show.
    visit(['/', '/rare'], 3);
    await v.save(f.t);
  });
  afterAll(() => f?.close());

  it('saves, lists, changes and removes a funnel', async () => {
    const created = await api().post(`/v1/sites/${siteId}/funnels`, { name: 'Signup', steps: STEPS }).expect(201);
    expect(created.body.funnel).toMatchObject({ name: 'Signup', steps: STEPS });
    const id = created.body.funnel.id;
    expect((await api().get(`/v1/sites/${siteId}/funnels`).expect(200)).body.funnels.map((x: { id: string }) => x.id)).toContain(
      id,
    );
    const changed = await api()
      .patch(`/v1/sites/${siteId}/funnels/${id}`, { name: 'Signup, two steps', steps: STEPS.slice(0, 2) })
      .expect(200);
    expect(changed.body.funnel).toMatchObject({ id, name: 'Signup, two steps', steps: STEPS.slice(0, 2) });
    await api().del(`/v1/sites/${siteId}/funnels/${id}`).expect(204);
    await api().del(`/v1/sites/${siteId}/funnels/${id}`).expect(404);
    await api().get(`/v1/sites/${siteId}/funnels/${id}/results`).expect(404);
  });

  it.each([
    ['one step', { name: 'x', steps: STEPS.slice(0, 1) }, 'steps', /at least 2 steps/],
    ['nine steps', { name: 'x', steps: Array(9).fill(STEPS[0]) }, 'steps', /at most 8 steps/],
    [
      'a page without /',
      { name: 'x', steps: [{ type: 'page', match: 'pricing' }, STEPS[0]] },
      'steps[0].match',
      /Start a page step with \//,
    ],
    ['* inside a path', { name: 'x', steps: [{ type: 'page', match: '/a*/b' }, STEPS[0]] }, 'steps[0].match', /only at the end/],
    ['no name', { name: ' ', steps: STEPS }, 'name', /Give the funnel a name/],
    ['an unknown step type', { name: 'x', steps: [{ type: 'goal', match: 'a' }, STEPS[0]] }, 'steps[0].type', /page .* or event/],
  ])('refuses %s (400 naming the field)', async (_, body, field, message) => {
    const res = await api().post(`/v1/sites/${siteId}/funnels`, body).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.field).toBe(field);
    expect(res.body.title).toMatch(message);
  });

  it('keeps at most 20 funnels per site (409), counted before each insert', async () => {
    const other = await f.site();
    const made = await Promise.all(
      Array.from({ length: 24 }, (_, i) => api().post(`/v1/sites/${other}/funnels`, { name: `F${i}`, steps: STEPS })),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(20);
    expect(made.filter((r) => r.status === 409)).toHaveLength(4);
    expect((await api().get(`/v1/sites/${other}/funnels`).expect(200)).body.funnels).toHaveLength(20);
  });

  it('answers 404 for another workspace’s site and an unknown or malformed funnel id', async () => {
    await api().get(`/v1/sites/${siteId}/funnels/00000000-0000-4000-8000-000000000000/results`).expect(404);
    await api().get(`/v1/sites/${siteId}/funnels/not-an-id/results`).expect(404);
    await api()
      .get(`/v1/sites/${siteId}/funnels/${'f'.repeat(65)}/results`)
      .expect(404);
    await api()
      .del(`/v1/sites/${siteId}/funnels/${'f'.repeat(65)}`)
      .expect(404);
    const stranger = await statsFixture();
    try {
      const theirs = await stranger.site();
      await api().get(`/v1/sites/${theirs}/funnels`).expect(404);
    } finally {
      await stranger.close();
    }
  });

  it('per step: visitors and sessions reaching it in order within one session, conversion, drop-off and median time', async () => {
    const { body: made } = await api().post(`/v1/sites/${siteId}/funnels`, { name: 'Signup', steps: STEPS }).expect(201);
    const res = await api().get(`/v1/sites/${siteId}/funnels/${made.funnel.id}/results`).expect(200);
    expect(res.body).toMatchObject({ from: dayAgo('UTC', 6), to: dayAgo('UTC', 0) });
    expect(res.body.steps).toEqual([
      { step: 1, type: 'page', match: '/', visitors: 71, sessions: 71, conversion: 100, dropOff: null, medianSeconds: null },
      {
        step: 2,
        type: 'page',
        match: '/pricing*',
        visitors: 50,
        sessions: 50,
        conversion: 70.42,
        dropOff: 29.58,
        medianSeconds: 60,
      },
      { step: 3, type: 'event', match: 'signup', visitors: 30, sessions: 30, conversion: 42.25, dropOff: 40, medianSeconds: 61 },
    ]);
  });

  it('shows a step reached by fewer than 5 visitors, and the steps after it, without figures', async () => {
    const steps = [STEPS[0], { type: 'page', match: '/rare' }, { type: 'page', match: '/' }];
    const { body: made } = await api().post(`/v1/sites/${siteId}/funnels`, { name: 'Rare', steps }).expect(201);
    const { body } = await api().get(`/v1/sites/${siteId}/funnels/${made.funnel.id}/results`, { days: 30 }).expect(200);
    expect(body.steps.map((s: { visitors: number | null }) => s.visitors)).toEqual([71, null, null]);
    expect(body.steps[1]).toMatchObject({ sessions: null, conversion: null, dropOff: null, medianSeconds: null });
  });

  it('applies the dashboard’s filters to where each session began; an unknown filter or parameter is 400', async () => {
    const site = await f.site();
    const v = new Visits(site);
    const at = noonUtc(dayAgo('UTC', 1));
    let n = 0;
    const visit = (pages: string[], times: number, country: string, from = '/') => {
      for (let i = 0; i < times; i++) v.visit(new Date(at.getTime() + ++n * 1000), `ff-${n}`, [from, ...pages], { country });
    };
    visit(['/pricing'], 10, 'DE');
    visit(['/pricing'], 6, 'FR');
    visit([], 4, 'FR');
    // Began on /blog, then took the funnel: in it unfiltered, out of it when filtered by the entry page /.
    visit(['/', '/pricing'], 5, 'FR', '/blog');
    await v.save(f.t);
    const steps = [STEPS[0], { type: 'page', match: '/pricing' }];
    const { body: made } = await api().post(`/v1/sites/${site}/funnels`, { name: 'Filtered', steps }).expect(201);
    const results = (q: Record<string, string>) => api().get(`/v1/sites/${site}/funnels/${made.funnel.id}/results`, q);
    const visitors = async (q: Record<string, string>) =>
      (await results(q).expect(200)).body.steps.map((x: { visitors: number | null }) => x.visitors);
    expect(await visitors({})).toEqual([25, 21]);
    expect(await visitors({ 'where.country': 'FR' })).toEqual([15, 11]);
    expect(await visitors({ 'where.country': 'FR', 'where.page': '/' })).toEqual([10, 6]);
    const unknown = await results({ 'where.nope': 'x' }).expect(400);
    expect(unknown.body.field).toBe('where.nope');
    const stray = await results({ colour: 'red' }).expect(400);
    expect(stray.body.field).toBe('colour');
  });

  it('needs analytics:read for results and sites:write to save (403 naming the scope)', async () => {
    const { body: made } = await api().post(`/v1/sites/${siteId}/funnels`, { name: 'Scopes', steps: STEPS }).expect(201);
    // The fixture's own token holds analytics:read only.
    await f.get(`/v1/sites/${siteId}/funnels/${made.funnel.id}/results`).expect(200);
    const refused = await f.post(`/v1/sites/${siteId}/funnels`, { name: 'No', steps: STEPS }).expect(403);
    expect(JSON.stringify(refused.body)).toContain('sites:write');
  });
});
