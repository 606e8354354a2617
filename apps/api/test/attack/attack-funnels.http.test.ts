import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectProblem } from '../support/auth-helpers.ts';
import { whileHolding } from '../support/held-lock.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { siteOfNewOwner } from '../support/sites.ts';
import { dayAgo, noonUtc } from '../support/stats-fixture.ts';
import { Visits } from '../support/visits.ts';

/**
 * A workspace asking for the heaviest funnel there is (8 steps that each match every page, over the whole
 * raw window, on sessions of hundreds of pageviews) gets its answer without holding the database for long,
 * and cannot starve another workspace: it holds at most its own workspace's stats slots, each statement
 * ends at the stats timeout (503), and meanwhile the other workspace's funnel and summary are answered.
 *
 * A question that runs until the timeout is made deterministic by holding the heavy site's stored funnel
 * days locked from another connection after rows arrived for one of them: storing that day again waits.
 */
describe('a heavy funnel cannot starve other workspaces', () => {
  let t: TestServer;
  let locker: Orm;
  let heavy: { siteId: string; auth: string; funnel: string };
  let other: { siteId: string; auth: string; funnel: string };

  async function siteWithFunnel(name: string, steps: { type: string; match: string }[]) {
    const o = await siteOfNewOwner(t, { name, scopes: ['sites:read', 'sites:write', 'analytics:read'] });
    const res = await t.request
      .post(`/v1/sites/${o.siteId}/funnels`)
      .set('Authorization', o.auth)
      .send({ name, steps })
      .expect(201);
    return { siteId: o.siteId, auth: o.auth, funnel: res.body.funnel.id as string };
  }

  beforeAll(async () => {
    t = await startTestServer({ env: { STATS_TIMEOUT_MS: '1500', STATS_CONCURRENT_PER_WORKSPACE: '2' } });
    locker = await createOrm(inject('databaseUrl'), { poolMax: 1 });
    heavy = await siteWithFunnel(
      'Everything, eight times',
      Array.from({ length: 8 }, () => ({ type: 'page', match: '/*' })),
    );
    other = await siteWithFunnel('Pricing', [
      { type: 'page', match: '/' },
      { type: 'page', match: '/pricing' },
    ]);
    // Five sessions of 300 pageviews each (one every minute): every page matches every step.
    const long = new Visits(heavy.siteId);
    for (let v = 0; v < 5; v++) {
      long.visit(
        noonUtc(dayAgo('UTC', 3), 6),
        `long-${v}`,
        Array.from({ length: 300 }, (_, i) => `/p/${i}`),
      );
    }
    await long.save(t);
    const usual = new Visits(other.siteId);
    for (let v = 0; v < 6; v++) usual.visit(noonUtc(dayAgo('UTC', 1)), `usual-${v}`, ['/', '/pricing']);
    await usual.save(t);
  });
  afterAll(async () => {
    await locker?.close();
    await t?.close();
  });

  /** Runs `fn` while another connection holds the heavy site's stored funnel days locked. */
  const whileLocked = <T>(fn: () => Promise<T>) =>
    whileHolding(
      locker,
      async (trx) => {
        const rows = await trx.execute(`select 1 from result_days where site_id = ? and kind = 'funnel' for update`, [
          heavy.siteId,
        ]);
        expect(rows.length).toBeGreaterThan(80);
      },
      fn,
    );

  const results = (s: typeof heavy, days: number) =>
    t.request.get(`/v1/sites/${s.siteId}/funnels/${s.funnel}/results?days=${days}`).set('Authorization', s.auth);

  it('answers the heaviest funnel at once: every step reached by the five long sessions', async () => {
    // Every day of the range computed and stored within one ask (each took 3 s before the statement's rewrite).
    const answer = await results(heavy, 90);
    expect(answer.status).toBe(200);
    expect(answer.body.steps).toHaveLength(8);
    for (const step of answer.body.steps) expect(step).toMatchObject({ visitors: 5, sessions: 5, conversion: 100 });
    // Each step is reached one page (a minute) after the step before.
    expect(answer.body.steps[7].medianSeconds).toBe(60);
  });

  it('holds only its own workspace’s slots and ends at the timeout, while another workspace is answered', async () => {
    // Rows arrive for a stored day, so the next ask stores it again, and waits on the lock.
    await new Visits(heavy.siteId).visit(noonUtc(dayAgo('UTC', 3), 20), 'late', ['/late', '/later']).save(t);
    const seen = await whileLocked(async () => {
      const questions = Promise.all(Array.from({ length: 5 }, () => results(heavy, 90)));
      const theirs = await results(other, 7);
      const summary = await t.request.get(`/v1/sites/${other.siteId}/summary?days=7`).set('Authorization', other.auth);
      return { answers: await questions, theirs, summary };
    });
    expect(seen.theirs.status).toBe(200);
    expect(seen.theirs.body.steps.map((s: { visitors: number }) => s.visitors)).toEqual([6, 6]);
    expect(seen.summary.status).toBe(200);
    expect(seen.answers.map((a) => a.status).sort()).toEqual([429, 429, 429, 503, 503]);
    for (const a of seen.answers) {
      expectProblem(a, a.status);
      if (a.status === 429) expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
      else expect(a.body.title).toMatch(/took longer than the time allowed/);
    }
  });
});
