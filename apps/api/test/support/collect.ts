import type { Scope } from '@us/shared';
import { siteOfNewOwner } from './sites.ts';
import type { TestServer } from './server.ts';

export interface CollectSite {
  siteId: string;
  hostname: string;
  publicKey: string;
  secret: string;
  /** The owner's token (sites scopes and any extra asked for), e.g. for reading the site's install status. */
  auth: string;
  /** The owner's sign-in address (password GOOD_PASSWORD). */
  ownerEmail: string;
}

/** Factory: a site of a new owner with one hostname and a server secret, ready for page reports and edge batches. */
export async function collectSite(t: TestServer, hostname: string, extraScopes: Scope[] = []): Promise<CollectSite> {
  const owner = await siteOfNewOwner(t, { name: hostname, scopes: ['sites:read', 'sites:write', ...extraScopes] });
  await t.request.post(`/v1/sites/${owner.siteId}/hostnames`).set('Authorization', owner.auth).send({ hostname }).expect(201);
  const key = await t.request
    .post(`/v1/sites/${owner.siteId}/keys`)
    .set('Authorization', owner.auth)
    .send({ kind: 'secret' })
    .expect(201);
  return {
    siteId: owner.siteId,
    hostname,
    publicKey: owner.publicKey.value,
    secret: key.body.key.value,
    auth: owner.auth,
    ownerEmail: owner.email,
  };
}
