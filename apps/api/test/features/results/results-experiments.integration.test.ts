import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specOf } from '../../../src/analytics/day-store/spec.ts';
import { arrivalsOf, writeStored } from '../../../src/analytics/day-store/store.ts';
import { pearsonP } from '../../support/chi-square.ts';
import { dayAgo, noonUtc, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';
import { type Page, Visits } from '../../support/visits.ts';

const GOALS = [
  { id: 'pricing-page', name: 'Pricing page', type: 'path', match: '/pricing' },
  { id: 'signed-up', name: 'Signed up', type: 'event', match: 'signup' },
  { id: 'bought', name: 'Bought', type: 'event', match: 'purchase' },
];

let seq = 0;
/**
 * `sessions` sessions of the experiment `key` shown `variant`, `converted` of them sending `signup`
 * in the same session; every session also sends one `click`. Each session is its own visitor code.
 */
function sessionsOf(v: Visits, key: string, variant: string, sessions: number, converted: number, day = 2) {
  const at = noonUtc(dayAgo('UTC', day));
  for (let i = 0; i < sessions; i++) {
    seq += 1;
    const landing = { path: '/', exposures: { [key]: variant }, events: ['click'] };
    const pages = i < converted ? [landing, { path: '/signup', events: ['signup'] }] : [landing];
    v.visit(new Date(at.getTime() + seq * 1000), `${key}-${variant}-${seq}`, pages);
  }
}

/** `sessions` sessions of the pages `pages`, each its own visitor code, `day` days ago. */
function sessionsWith(v: Visits, label: string, sessions: number, pages: (string | Page)[], day = 2) {
  const at = noonUtc(dayAgo('UTC', day));
  for (let i = 0; i < sessions; i++) {
    seq += 1;
    v.visit(new Date(at.getTime() + seq * 1000), `${label}-${seq}`, pages);
  }
}

describe('GET /v1/sites/{id}/experiments/{key}/results', () => {
  let f: StatsFixture;
  let siteId: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site({
      settings: {
        goals: GOALS,
        experiments: [
          { key: 'hero', name: 'Hero image', variants: ['control', 'new', 'tiny'], status: 'running' },
          { key: 't1', variants: ['a', 'b'], status: 'running' },
          { key: 't2', variants: ['a', 'b'], status: 'running' },
          { key: 't3', variants: ['a', 'b'], status: 'running' },
          { key: 'small', variants: ['a', 'b'], status: 'draft' },
          { key: 'after', variants: ['a', 'b'], status: 'running' },
          { key: 'onpage', variants: ['a', 'b'], status: 'running' },
          { key: 'mix', variants: ['control', 'new'], status: 'running' },
        ],
      },
    });
    const v = new Visits(siteId);
    sessionsOf(v, 'hero', 'control', 20, 4);
    sessionsOf(v, 'hero', 'new', 25, 10);
    sessionsOf(v, 'hero', 'tiny', 3, 1);
    sessionsOf(v, 'hero', 'rogue', 2, 2);
    // Shown control, but the signup came in a later session of the same visitor: not converted there.
    const at = noonUtc(dayAgo('UTC', 1));
    v.visit(at, 'late', [{ path: '/', exposures: { hero: 'control' } }]);
    v.visit(new Date(at.getTime() + 3600_000), 'late', [{ path: '/signup', events: ['signup'] }]);
    // A bot shown new that signs up: not counted.
    v.visit(at, 'bot', [{ path: '/', exposures: { hero: 'new' }, events: ['signup'] }], { lane: 'bot' });
    // Tables whose p is checked against the chi-square test.
    sessionsOf(v, 't1', 'a', 100, 8);
    sessionsOf(v, 't1', 'b', 90, 12);
    sessionsOf(v, 't2', 'a', 10, 3);
    sessionsOf(v, 't2', 'b', 12, 9);
    sessionsOf(v, 't3', 'a', 80, 48);
    sessionsOf(v, 't3', 'b', 70, 56);
    sessionsOf(v, 'small', 'a', 9, 3);
    sessionsOf(v, 'small', 'b', 4, 4);
    // Every session signs up first, then reaches the page of the experiment (clicking there).
    for (const variant of ['a', 'b']) {
      sessionsWith(v, `after-${variant}`, 6, [
        { path: '/signup', events: ['signup'] },
        { path: '/welcome', exposures: { after: variant }, events: ['click'] },
      ]);
    }
    // a: signs up from the very page that showed the variant; b: that page is /pricing, then /pricing again.
    sessionsWith(v, 'onpage-a', 5, [{ path: '/pricing', exposures: { onpage: 'a' }, events: ['signup'] }]);
    sessionsWith(v, 'onpage-b', 5, [{ path: '/pricing', exposures: { onpage: 'b' } }, '/pricing']);
    // Shown control, then new on a later page where they sign up; others shown one variant (new twice for 2).
    sessionsOf(v, 'mix', 'control', 5, 0);
    sessionsOf(v, 'mix', 'new', 5, 0);
    sessionsWith(v, 'mix-both', 6, [
      { path: '/', exposures: { mix: 'control' } },
      { path: '/b', exposures: { mix: 'new' }, events: ['signup'] },
    ]);
    sessionsWith(v, 'mix-new-twice', 2, [
      { path: '/', exposures: { mix: 'new' } },
      { path: '/c', exposures: { mix: 'new' } },
    ]);
    await v.save(f.t);
  });
  afterAll(() => f.close());

  const results = (key: string, query: Record<string, string | number> = {}) =>
    f.get(`/v1/sites/${siteId}/experiments/${key}/results`, query);

  it('per variant: sessions shown, converted in the same session, rate and events; small variants without figures', async () => {
    const res = await results('hero').expect(200);
    expect(res.body).toMatchObject({
      key: 'hero',
      name: 'Hero image',
      status: 'running',
      from: dayAgo('UTC', 6),
      to: dayAgo('UTC', 0),
      goal: { id: 'signed-up', name: 'Signed up', type: 'event', match: 'signup' },
    });
    expect(res.body.variants).toEqual([
      { variant: 'control', sessions: 21, converted: 4, rate: 19.05, events: 24, enough: true },
      { variant: 'new', sessions: 25, converted: 10, rate: 40, events: 35, enough: true },
      { variant: 'tiny', sessions: null, converted: null, rate: null, events: null, enough: false },
      { variant: 'rogue', sessions: null, converted: null, rate: null, events: null, enough: false },
    ]);
    const p = pearsonP(10, 25, 4, 21);
    expect(res.body.comparison).toMatchObject({ a: 'new', b: 'control', difference: -20.95, test: 'pooled two-sided z-test' });
    expect(Math.abs(res.body.comparison.p - p)).toBeLessThan(1e-6);
    // The spec's own field beside the comparison: the same p.
    expect(res.body.p).toBe(res.body.comparison.p);
    expect(res.body.verdict).toBe(
      `no clear difference yet between new and control (p = ${Number(p.toPrecision(2))}): keep the experiment running`,
    );
  });

  it.each([
    ['t1', 100, 8, 90, 12],
    ['t2', 12, 9, 10, 3],
    ['t3', 80, 48, 70, 56],
  ])('%s: p equals the chi-square test of the same table to 1e-6', async (key, na, xa, nb, xb) => {
    const { body } = await results(key).expect(200);
    expect(body.comparison).toMatchObject({ difference: Math.round((xb / nb - xa / na) * 1e4) / 100 });
    expect(Math.abs(body.comparison.p - pearsonP(xa, na, xb, nb))).toBeLessThan(1e-6);
  });

  it("the interval of t3 (48/80 vs 56/70) is Newcombe's 0.0524 to 0.3339, and b converts better", async () => {
    const { body } = await results('t3').expect(200);
    expect(body.comparison).toMatchObject({ a: 'a', b: 'b', difference: 20, interval: { low: 5.24, high: 33.39 } });
    expect(body.verdict).toMatch(/^b converts better than a \(80\.0 % vs 60\.0 %\), p = 0\.0\d+$/);
  });

  it('no comparison while one of the two largest variants has under 5 sessions, and its counts show nowhere', async () => {
    const { body } = await results('small').expect(200);
    expect(body.variants).toEqual([
      { variant: 'a', sessions: 9, converted: 3, rate: 33.33, events: 12, enough: true },
      { variant: 'b', sessions: null, converted: null, rate: null, events: null, enough: false },
    ]);
    expect(body.comparison).toBeNull();
    expect(body).not.toHaveProperty('p');
    expect(body.verdict).toBe('not enough sessions yet: the two largest variants need at least 5 sessions each');
    expect(JSON.stringify(body)).not.toMatch(/"(sessions|converted|events)":4\b/);
  });

  it('goal= picks another goal, path goals included', async () => {
    const pricing = await results('hero', { goal: 'pricing-page' }).expect(200);
    expect(pricing.body.goal).toMatchObject({ id: 'pricing-page', type: 'path' });
    expect(pricing.body.variants[0]).toMatchObject({ sessions: 21, converted: 0, rate: 0 });
    const bought = await results('hero', { goal: 'bought' }).expect(200);
    expect(bought.body.comparison).toMatchObject({ p: 1 });
  });

  it('a conversion before the exposure is not credited: sessions that all signed up before seeing the experiment show 0 %, not 100 %', async () => {
    const { body } = await results('after').expect(200);
    // Events too count from the exposure on: the click on the experiment's page, not the signup before it.
    expect(body.variants).toEqual([
      { variant: 'a', sessions: 6, converted: 0, rate: 0, events: 6, enough: true },
      { variant: 'b', sessions: 6, converted: 0, rate: 0, events: 6, enough: true },
    ]);
    expect(body.comparison).toMatchObject({ a: 'a', b: 'b', p: 1, difference: 0 });
  });

  it('an event sent from the page that showed the variant counts; a page goal met by that very pageview does not, a later one does', async () => {
    const signup = await results('onpage').expect(200);
    expect(signup.body.variants).toEqual([
      { variant: 'a', sessions: 5, converted: 5, rate: 100, events: 5, enough: true },
      { variant: 'b', sessions: 5, converted: 0, rate: 0, events: 0, enough: true },
    ]);
    const pricing = await results('onpage', { goal: 'pricing-page' }).expect(200);
    expect(pricing.body.variants.map((r: { converted: number }) => r.converted)).toEqual([0, 5]);
  });

  it('a session shown control, then new counts once, in control (its first exposure), and mixedSessions counts it', async () => {
    const { body } = await results('mix').expect(200);
    // control: 5 + the 6 shown both (who signed up after seeing new: still control's, from its first exposure on);
    // new: 5 + the 2 shown new twice (once each). No session is in both groups compared.
    expect(body.variants).toEqual([
      { variant: 'control', sessions: 11, converted: 6, rate: 54.55, events: 11, enough: true },
      { variant: 'new', sessions: 7, converted: 0, rate: 0, events: 5, enough: true },
    ]);
    expect(body.mixedSessions).toBe(6);
    expect(body.comparison).toMatchObject({ a: 'control', b: 'new' });
    expect(Math.abs(body.comparison.p - pearsonP(6, 11, 0, 7))).toBeLessThan(1e-6);
    // Sessions shown one variant only: none mixed.
    expect((await results('hero').expect(200)).body.mixedSessions).toBe(0);
  });

  it('days stored under the former meaning (whole sessions, every variant shown) are not served', async () => {
    const site = await f.site({
      settings: { goals: GOALS, experiments: [{ key: 'hero', variants: ['a', 'b'], status: 'running' }] },
    });
    const v = new Visits(site);
    for (const variant of ['a', 'b']) {
      sessionsWith(v, `stored-${variant}`, 5, [
        { path: '/signup', events: ['signup'] },
        { path: '/', exposures: { hero: variant } },
      ]);
    }
    await v.save(f.t);
    // The day as the former statement stored it, under the former part definition (key, goal kind, goal value).
    const day = dayAgo('UTC', 2);
    const em = f.t.deps.orm.em.fork();
    const seen = (await arrivalsOf(em, site, [day])).get(day) ?? 0;
    const spec = specOf(['experiment', ['hero', 'event', 'signup']], [], day);
    const rows = ['a', 'b'].map((variant) => ({ variant, sessions: 5, converted: 5, events: 5 }));
    await writeStored(em, site, 'experiment', [{ spec, day, rows }], seen);
    const { body } = await f.get(`/v1/sites/${site}/experiments/hero/results`).expect(200);
    expect(body.variants).toEqual([
      { variant: 'a', sessions: 5, converted: 0, rate: 0, events: 0, enough: true },
      { variant: 'b', sessions: 5, converted: 0, rate: 0, events: 0, enough: true },
    ]);
  });

  // The defect: a page may name any variant; each made-up one was stored per day, read and summed, to show 20.
  it('stores a day with every declared variant and at most the 200 largest made-up ones', async () => {
    const site = await f.site({
      settings: { goals: GOALS, experiments: [{ key: 'hero', variants: ['a', 'b'], status: 'running' }] },
    });
    const v = new Visits(site);
    sessionsOf(v, 'hero', 'a', 6, 1);
    sessionsOf(v, 'hero', 'b', 1, 0);
    sessionsOf(v, 'hero', 'big-made-up', 7, 0);
    for (let i = 0; i < 260; i++) sessionsOf(v, 'hero', `made-up-${i}`, 1, 0);
    await v.save(f.t);
    const { body } = await f.get(`/v1/sites/${site}/experiments/hero/results`).expect(200);
    expect(body.variants.slice(0, 3)).toEqual([
      expect.objectContaining({ variant: 'a', sessions: 6 }),
      expect.objectContaining({ variant: 'b', enough: false }),
      expect.objectContaining({ variant: 'big-made-up', sessions: 7 }),
    ]);
    expect(body.variants).toHaveLength(2 + 20);
    const [stored] = await f.t.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        `select max(jsonb_array_length(rows))::int as n from result_days where site_id = ? and kind = 'experiment'`,
        [site],
      );
    expect(stored?.n).toBe(2 + 200);
  });

  it('without an event goal and no goal given: goal null, no conversions, a verdict saying to add one', async () => {
    const site = await f.site({
      settings: {
        goals: [{ id: 'pricing-page', name: 'Pricing page', type: 'path', match: '/pricing' }],
        experiments: [{ key: 'hero', variants: ['a', 'b'], status: 'running' }],
      },
    });
    const v = new Visits(site);
    sessionsOf(v, 'hero', 'a', 6, 1);
    sessionsOf(v, 'hero', 'b', 6, 2);
    await v.save(f.t);
    const { body } = await f.get(`/v1/sites/${site}/experiments/hero/results`).expect(200);
    expect(body.goal).toBeNull();
    expect(body.comparison).toBeNull();
    expect(body.variants[0]).toEqual({ variant: 'a', sessions: 6, converted: null, rate: null, events: 7, enough: true });
    expect(body.verdict).toMatch(/add an event goal/);
  });
});
