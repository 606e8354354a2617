import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { racedChange } from '../../support/raced-change.ts';
import { createToken } from '../../support/server.ts';
import { type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

/**
 * A site deleted while a request about it is under way: the request read the site before the deletion
 * committed, and its own write then refers to a row that is gone. The caller gets a problem saying so (409),
 * never a 500, and the deletion stands.
 */
describe('a site deleted while a request about it is under way', () => {
  let f: StatsFixture;
  let token: string;

  beforeAll(async () => {
    f = await statsFixture();
    ({ token } = await createToken(f.t.deps, {
      userId: f.userId,
      workspaceId: f.workspaceId,
      scopes: ['export:read', 'sites:read'],
    }));
  });
  afterAll(() => f.close());

  /** Deletes the site in a transaction, starts `request`, waits until a statement like `waiting` waits for the row, and commits. */
  const whileDeleting = <T>(siteId: string, request: () => Promise<T>, waiting: string) =>
    racedChange(f.t.deps.orm, (sql) => sql('delete from sites where id = ?', [siteId]), request, waiting);

  it('an export answers 409 problem+json, and the site stays deleted', async () => {
    const siteId = await f.site();
    const res = await whileDeleting(
      siteId,
      () =>
        f.t.request
          .post(`/v1/sites/${siteId}/export`)
          .set('Authorization', `Bearer ${token}`)
          .send({})
          .then((r) => r),
      '%insert into exports%',
    );
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.title).toMatch(/deleted meanwhile/);
    await f.t.request.get(`/v1/sites/${siteId}`).set('Authorization', `Bearer ${token}`).expect(404);
    // Other requests are served as before.
    const other = await f.site();
    await f.t.request.post(`/v1/sites/${other}/export`).set('Authorization', `Bearer ${token}`).send({}).expect(200);
  });
});
