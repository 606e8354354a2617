// Nodes keep API tokens they looked up in memory (actor/token-cache.ts). Revoked still means refused at
// once: on the node that revoked and on another node sharing the hot state, whichever way a token ends
// (deleted, its maker demoted or removed; a password reset goes the same way: auth-password tests).
import { randomUUID } from 'node:crypto';
import { ApiToken, Membership } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpCredentialsGeneration } from '../../../src/actor/token-cache.ts';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, createUser, defaultHotKind, signIn, startTestServer, type TestServer } from '../../support/server.ts';

describe(`API tokens cached per node (${defaultHotKind()} hot state)`, () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    // Two nodes of one deployment: one database, one hot state (Redis when this run has one).
    const hotPrefix = `us:test-${randomUUID()}:`;
    a = await startTestServer({ hotPrefix });
    b = defaultHotKind() === 'redis' ? await startTestServer({ hotPrefix }) : a;
  });
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
  });

  const me = (t: TestServer, token: string) => t.request.get('/v1/me').set('Authorization', `Bearer ${token}`);
  /** Used on both nodes, so both hold it in memory. */
  async function warm(token: string) {
    for (const t of [a, b, a, b]) expect((await me(t, token)).status).toBe(200);
  }

  it('a deleted token is refused at once on the other node', async () => {
    const o = await createUser(a.deps);
    const kept = await createToken(a.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
    const doomed = await createToken(a.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
    await warm(doomed.token);
    await warm(kept.token);
    const owner = await signIn(a, o.email);
    await a.request.delete(`/v1/tokens/${doomed.id}`).set('Cookie', owner).set('X-Workspace', o.workspace.id).expect(204);
    expectProblem(await me(b, doomed.token), 401);
    expectProblem(await me(a, doomed.token), 401);
    // Tokens nobody revoked keep working.
    expect((await me(b, kept.token)).status).toBe(200);
  });

  it('a maker demoted or removed loses the tokens beyond their role at once, everywhere', async () => {
    const o = await createUser(a.deps);
    const person = await createUser(a.deps);
    const em = a.deps.orm.em.fork();
    em.create(Membership, { workspace: o.workspace.id, user: person.user.id, role: 'admin' });
    await em.flush();
    const owner = await signIn(a, o.email);
    const writer = await createToken(a.deps, { userId: person.user.id, workspaceId: o.workspace.id, scopes: ['members:write'] });
    const reader = await createToken(a.deps, { userId: person.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
    await warm(writer.token);
    await warm(reader.token);

    await a.request
      .patch(`/v1/members/${person.user.id}`)
      .set('Cookie', owner)
      .set('X-Workspace', o.workspace.id)
      .send({ role: 'member' })
      .expect(200);
    expectProblem(await me(b, writer.token), 401);
    expect((await me(b, reader.token)).status).toBe(200);

    await a.request.delete(`/v1/members/${person.user.id}`).set('Cookie', owner).set('X-Workspace', o.workspace.id).expect(204);
    expectProblem(await me(b, reader.token), 401);
  });

  it('answers from memory until something is revoked: a row changed by SQL is seen once the counter moves', async () => {
    const o = await createUser(a.deps);
    const tok = await createToken(a.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
    await warm(tok.token);
    await a.deps.orm.em.fork().nativeUpdate(ApiToken, { id: tok.id }, { revokedAt: new Date() });
    // The nodes did not ask the database again (that is the point of the cache)…
    expect((await me(b, tok.token)).status).toBe(200);
    // …until a revocation anywhere moves the counter (docs/product/sites-and-members.md, "Token lookups are cached per
    // node": revoking by SQL, bump it too).
    await bumpCredentialsGeneration(a.deps.hot);
    expectProblem(await me(b, tok.token), 401);
    expectProblem(await me(a, tok.token), 401);
  });
});
