import { createOrm, ensurePartitionsForDays, type Orm, partitionName } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectProblem } from '../support/auth-helpers.ts';
import { type CollectSite, collectSite, postReport } from '../support/collect.ts';
import { whileHolding } from '../support/held-lock.ts';
import { createUser, GOOD_PASSWORD, startTestServer, type TestServer } from '../support/server.ts';

/**
 * One viewer asking heavy stats questions must not starve anyone: stats run on a pool of their own with
 * a statement timeout (503 saying to narrow the range), and a workspace has a bounded number running at
 * once (429 with Retry-After). Meanwhile sign-in and collect keep working.
 *
 * A "heavy" question is made deterministic by holding an exclusive lock on a raw partition inside the
 * asked range from another connection: the question waits on it until its statement_timeout.
 */
describe('stats cannot starve the service', () => {
  let t: TestServer;
  let site: CollectSite;
  let locker: Orm;
  const lockedDay = new Date(Date.now() - 85 * 86_400_000);

  beforeAll(async () => {
    // The timeout must outlast the five questions' arrival on a loaded machine: at 400 ms one timed out
    // (freeing its slot) before the fifth arrived, which then ran instead of being refused.
    t = await startTestServer({ env: { STATS_TIMEOUT_MS: '1500', STATS_CONCURRENT_PER_WORKSPACE: '2' } });
    site = await collectSite(t, 'heavy.example', ['analytics:read']);
    await ensurePartitionsForDays(t.deps.orm, [lockedDay]);
    locker = await createOrm(inject('databaseUrl'), { poolMax: 1 });
  });
  afterAll(async () => {
    await locker.close();
    await t.close();
  });

  /** Runs `fn` while another connection holds an exclusive lock on the partition of `lockedDay`. */
  const whileLocked = <T>(fn: () => Promise<T>) =>
    whileHolding(
      locker,
      (trx) => trx.execute(`lock table "${partitionName('pageviews', lockedDay)}" in access exclusive mode`),
      fn,
    );

  const summary = () => t.request.get(`/v1/sites/${site.siteId}/summary?days=90`).set('Authorization', site.auth);

  it('a question past the statement timeout is 503 saying to narrow the range; the workspace cap answers 429', async () => {
    const { email } = await createUser(t.deps);
    const results = await whileLocked(async () => {
      const questions = Promise.all(Array.from({ length: 5 }, () => summary()));
      // While they run: sign-in and collect are served from the main pool.
      const login = await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD });
      const collect = await postReport(t, site);
      return { answers: await questions, login: login.status, collect: collect.status };
    });
    expect(results.login).toBe(200);
    expect(results.collect).toBe(202);
    const statuses = results.answers.map((a) => a.status).sort();
    expect(statuses).toEqual([429, 429, 429, 503, 503]);
    for (const a of results.answers) {
      if (a.status === 429) {
        expectProblem(a, 429);
        expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
      } else {
        expectProblem(a, 503);
        expect(a.body.title).toMatch(/narrow the date range/);
      }
    }
    // The lock is gone: the same question answers, and the slots were given back.
    const again = await Promise.all([summary(), summary()]);
    expect(again.map((a) => a.status)).toEqual([200, 200]);
  });
});
