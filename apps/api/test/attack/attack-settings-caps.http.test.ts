import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/auth-helpers.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { siteOfNewOwner } from '../support/sites.ts';

const CAP = 100;
const goal = (i: number) => ({ name: `Goal ${i}`, type: 'event', match: `event-${i}` });
const experiment = (i: number) => ({ key: `exp-${i}`, variants: ['a', 'b'] });

/**
 * The settings PATCH caps each list at 100; adding one at a time must not grow a site's goals or
 * experiments past that (each is read on every stats query and every page report).
 */
describe('attack: growing a site’s goals and experiments one at a time', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it(`POST /v1/sites/{id}/goals past ${CAP} is 409 saying to remove one first; after removing one it adds again`, async () => {
    const { auth, siteId } = await siteOfNewOwner(t);
    await t.request
      .patch(`/v1/sites/${siteId}/settings`)
      .set('Authorization', auth)
      .send({ goals: Array.from({ length: CAP }, (_, i) => goal(i)) })
      .expect(200);
    const res = await t.request.post(`/v1/sites/${siteId}/goals`).set('Authorization', auth).send(goal(CAP));
    const body = expectProblem(res, 409);
    expect(body.title).toMatch(/100 goals/);
    expect(body.title).toMatch(/remove one first/i);

    const list = await t.request.get(`/v1/sites/${siteId}/goals`).set('Authorization', auth).expect(200);
    expect(list.body.goals).toHaveLength(CAP);
    await t.request.delete(`/v1/sites/${siteId}/goals/${list.body.goals[0].id}`).set('Authorization', auth).expect(204);
    await t.request.post(`/v1/sites/${siteId}/goals`).set('Authorization', auth).send(goal(CAP)).expect(201);
  });

  it(`POST /v1/sites/{id}/experiments past ${CAP} is 409 saying to remove one first`, async () => {
    const { auth, siteId } = await siteOfNewOwner(t);
    await t.request
      .patch(`/v1/sites/${siteId}/settings`)
      .set('Authorization', auth)
      .send({ experiments: Array.from({ length: CAP }, (_, i) => experiment(i)) })
      .expect(200);
    const body = expectProblem(
      await t.request.post(`/v1/sites/${siteId}/experiments`).set('Authorization', auth).send(experiment(CAP)),
      409,
    );
    expect(body.title).toMatch(/100 experiments/);
    expect(body.title).toMatch(/remove one first/i);
    const list = await t.request.get(`/v1/sites/${siteId}/experiments`).set('Authorization', auth).expect(200);
    expect(list.body.experiments).toHaveLength(CAP);
  });

  it('goals added at once stop at the cap', async () => {
    const { auth, siteId } = await siteOfNewOwner(t);
    await t.request
      .patch(`/v1/sites/${siteId}/settings`)
      .set('Authorization', auth)
      .send({ goals: Array.from({ length: CAP - 3 }, (_, i) => goal(i)) })
      .expect(200);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.request
          .post(`/v1/sites/${siteId}/goals`)
          .set('Authorization', auth)
          .send(goal(1000 + i)),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(7);
    const list = await t.request.get(`/v1/sites/${siteId}/goals`).set('Authorization', auth).expect(200);
    expect(list.body.goals).toHaveLength(CAP);
  });
});
