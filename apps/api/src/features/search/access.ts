// Delegated access, checked again before every pull (spec §3: only a verified hostname may be covered
// by delegated search access): the property's host must still be a verified hostname of the site, and
// this service's account must still be able to read the property. When either no longer holds, the
// connection shows it (GET …/search: `status`, `statusMessage`) and is not pulled: a hostname verified
// again resumes the pulls on their own, withdrawn access needs the source connected again.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SEARCH_ACCESS } from '@us/shared';
import { accessToken, canReadProperty, propertyHost, type ServiceAccountKey } from './google.ts';

export type AccessStatus = (typeof SEARCH_ACCESS)[number];

/** Whether `host` is a verified hostname of the site. */
export async function isVerifiedHostname(em: EntityManager, siteId: string, host: string): Promise<boolean> {
  const rows = await em
    .getConnection()
    .execute<unknown[]>(
      'select 1 from site_hostnames where site_id = ? and hostname = ? and verified_at is not null limit 1',
      [siteId, host],
      'all',
    );
  return rows.length > 0;
}

/**
 * The check before a delegated pull: the hostname first (no call to Google for a site that no longer
 * holds it), then the property's permission for this service's account (Search Console's sites.get).
 * A provider failure on the way is thrown (a ProviderError: the pull fails and is retried).
 */
export async function delegatedAccess(
  em: EntityManager,
  googleApi: string,
  key: ServiceAccountKey,
  siteId: string,
  property: string,
): Promise<{ status: 'ok'; token: string } | { status: Exclude<AccessStatus, 'ok'> }> {
  const host = propertyHost(property);
  if (!host || !(await isVerifiedHostname(em, siteId, host))) return { status: 'hostname-unverified' };
  const token = await accessToken(key);
  if (!(await canReadProperty(googleApi, token, property))) return { status: 'access-lost' };
  return { status: 'ok', token };
}

/** What the connection says to do when its pulls are stopped (null when they run). */
export function accessMessage(status: AccessStatus, property: string, account: string): string | null {
  if (status === 'hostname-unverified') {
    const host = propertyHost(property) ?? property;
    return `Pulls are stopped: ${host} is no longer a verified hostname of this site. Verify it again (pulls then resume on their own), or connect again with mode service_account and your own key`;
  }
  if (status === 'access-lost') {
    return `Pulls are stopped: ${account} can no longer read ${property} in Search Console. Add it as a user of the property again, then connect again`;
  }
  return null;
}
