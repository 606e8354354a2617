import type { EntityManager } from '@mikro-orm/postgresql';
import { SiteHostname } from '@us/db';

/** The status of a built-in-ingress hostname (no edge registration) until its records are seen. */
export const INGRESS_PENDING = 'pending';
/** Live: a return target of its site (features/protection/protected-site.ts), carried by the proxy. */
export const INGRESS_LIVE = 'active';

/**
 * Marks a pending built-in-ingress proxy hostname live (status active, `verifiedAt` now). True when this
 * call did it; a concurrent check that got there first leaves it as it is.
 */
export async function goLive(em: EntityManager, siteId: string, hostname: string): Promise<boolean> {
  const changed = await em.nativeUpdate(
    SiteHostname,
    { site: siteId, hostname, proxy: true, edgeId: null, edgeStatus: INGRESS_PENDING },
    { edgeStatus: INGRESS_LIVE, verifiedAt: new Date() },
  );
  return changed > 0;
}
