import { randomBytes } from 'node:crypto';
import type { Scope } from '@us/shared';
import type { TestServer } from './server.ts';
import { siteOfNewOwner } from './sites.ts';

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

/** A pageview report as the page script sends it (fields may be overridden, e.g. `t`, `u`, `x`). */
export function pageReport(site: Pick<CollectSite, 'publicKey' | 'hostname'>, extra: Record<string, unknown> = {}) {
  return {
    t: 'pv',
    k: site.publicKey,
    u: `https://${site.hostname}/`,
    id: randomBytes(8).toString('hex'),
    r: '',
    w: 1280,
    l: 'en',
    z: 'UTC',
    n: 1,
    ...extra,
  };
}

/** Posts one page report as a browser would (text/plain), from `ip` when the server trusts X-Forwarded-For. */
export function postReport(
  t: TestServer,
  site: Pick<CollectSite, 'publicKey' | 'hostname'>,
  opts: { extra?: Record<string, unknown>; ip?: string; ua?: string } = {},
) {
  const req = t.request
    .post('/collect')
    .set('Content-Type', 'text/plain')
    .set('User-Agent', opts.ua ?? BROWSER_UA);
  if (opts.ip) req.set('X-Forwarded-For', opts.ip);
  return req.send(JSON.stringify(pageReport(site, opts.extra)));
}

export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
