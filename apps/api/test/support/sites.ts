import type { Scope } from '@us/shared';
import { createToken, createUser, type TestServer } from './server.ts';

/**
 * Factory: a new owner with a token (sites scopes unless told otherwise) and one site made through the
 * API. `publicKey` is the site's public key record from the creation answer.
 */
export async function siteOfNewOwner(t: TestServer, opts: { name?: string; scopes?: Scope[] } = {}) {
  const u = await createUser(t.deps);
  const { token } = await createToken(t.deps, {
    userId: u.user.id,
    workspaceId: u.workspace.id,
    scopes: opts.scopes ?? ['sites:read', 'sites:write'],
  });
  const auth = `Bearer ${token}`;
  const res = await t.request
    .post('/v1/sites')
    .set('Authorization', auth)
    .send({ name: opts.name ?? 'Test site' })
    .expect(201);
  return { ...u, token, auth, siteId: res.body.site.id as string, publicKey: res.body.publicKey };
}
