import { createHash } from 'node:crypto';
import { Membership, Site } from '@us/db';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '../../src/faces/invoke.ts';
import { expectProblem } from '../support/auth-helpers.ts';
import { createUser, GOOD_PASSWORD, signIn, startTestServer, type TestServer } from '../support/server.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Idempotency records replay a stored answer to whoever repeats the key: they must never hand one
 * workspace's answer to a request made in another, and what they keep must not let anyone reading the
 * hot-state store test guesses of the request (the change-password input holds passwords).
 */
describe('attack: idempotency records', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('the same key on a create in two workspaces makes two things, and replays neither across them', async () => {
    const a = await createUser(t.deps, { workspaceName: 'Workspace A' });
    const b = await createUser(t.deps, { workspaceName: 'Workspace B' });
    const em = t.deps.orm.em.fork();
    em.create(Membership, { workspace: b.workspace.id, user: a.user.id, role: 'admin' });
    await em.flush();
    const cookie = await signIn(t, a.email);
    const key = `site-${Date.now()}`;
    const create = (workspaceId: string) =>
      t.request
        .post('/v1/sites')
        .set('Cookie', cookie)
        .set('X-Workspace', workspaceId)
        .set('Idempotency-Key', key)
        .send({ name: 'Shop' });

    const inA = await create(a.workspace.id).expect(201);
    const inB = await create(b.workspace.id).expect(201);
    expect(inB.headers['idempotent-replayed']).toBeUndefined();
    expect(inB.body.site.id).not.toBe(inA.body.site.id);
    const rows = await t.deps.orm.em.fork().find(Site, { id: [inA.body.site.id, inB.body.site.id] });
    expect(Object.fromEntries(rows.map((s) => [s.id, s.workspace.id]))).toEqual({
      [inA.body.site.id]: a.workspace.id,
      [inB.body.site.id]: b.workspace.id,
    });

    // Within one workspace the key still replays.
    const again = await create(b.workspace.id).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.site.id).toBe(inB.body.site.id);
  });

  it('the stored record holds neither the password nor a plain SHA-256 of the request', async () => {
    const { email } = await createUser(t.deps);
    const cookie = await signIn(t, email);
    const input = { currentPassword: GOOD_PASSWORD, newPassword: 'amber-lantern-orchard-58' };
    const stored: string[] = [];
    const spy = vi.spyOn(t.deps.hot, 'set');
    const claims = vi.spyOn(t.deps.hot, 'setIfAbsent');
    const settled = vi.spyOn(t.deps.hot, 'replaceIfEquals');
    try {
      await t.request
        .post('/v1/auth/password/change')
        .set('Cookie', cookie)
        .set('Idempotency-Key', `change-${Date.now()}`)
        .send(input)
        .expect(200);
      for (const [key, value] of [...spy.mock.calls, ...claims.mock.calls]) if (key.startsWith('idem:')) stored.push(value);
      for (const [key, , value] of settled.mock.calls) if (key.startsWith('idem:')) stored.push(value);
    } finally {
      spy.mockRestore();
      claims.mockRestore();
      settled.mockRestore();
    }
    expect(stored.length).toBeGreaterThanOrEqual(2);
    const canonical = canonicalJson(input);
    for (const value of stored) {
      expect(value).not.toContain(input.currentPassword);
      expect(value).not.toContain(input.newPassword);
      expect(value).not.toContain(sha256(canonical));
      expect(value).not.toContain(sha256(`auth.changePassword\n${canonical}`));
    }
  });

  it('a different request under a used key is still 422', async () => {
    const { email } = await createUser(t.deps);
    const cookie = await signIn(t, email);
    const key = `enrol-${Date.now()}`;
    await t.request
      .post('/v1/auth/2fa/enroll')
      .set('Cookie', cookie)
      .set('Idempotency-Key', key)
      .send({ password: GOOD_PASSWORD })
      .expect(200);
    expectProblem(
      await t.request
        .post('/v1/auth/2fa/enroll')
        .set('Cookie', cookie)
        .set('Idempotency-Key', key)
        .send({ password: `${GOOD_PASSWORD}x` }),
      422,
      undefined,
    );
  });
});
