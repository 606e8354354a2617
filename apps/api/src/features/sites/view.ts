import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, SiteHostname } from '@us/db';
import type { Site as SiteOut } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { byCreation, hostnameRecord } from '../hostnames/index.ts';
import { readSettings } from './settings-values.ts';

/** The site record (spec §2 Site) from its row and its hostname rows. */
export function siteRecord(site: Site, hostnames: SiteHostname[]): SiteOut {
  return {
    id: site.id,
    name: site.name,
    timezone: site.timezone,
    createdAt: site.createdAt.toISOString(),
    hostnames: [...hostnames].sort(byCreation).map(hostnameRecord),
    settings: readSettings(site.settings),
    lastSeenAt: site.lastSeenAt ? site.lastSeenAt.toISOString() : null,
    retentionDays: site.retentionDays ?? null,
  };
}

/** Site records of several rows, with their hostnames read in one query. */
export async function siteRecords(em: EntityManager, sites: Site[]): Promise<SiteOut[]> {
  if (sites.length === 0) return [];
  const rows = await em.find(SiteHostname, { site: { $in: sites.map((s) => s.id) } });
  const bySite = new Map<string, SiteHostname[]>();
  for (const row of rows) {
    const id = row.site.id;
    bySite.set(id, [...(bySite.get(id) ?? []), row]);
  }
  return sites.map((s) => siteRecord(s, bySite.get(s.id) ?? []));
}

export async function siteRecordOf(em: EntityManager, site: Site): Promise<SiteOut> {
  const [record] = await siteRecords(em, [site]);
  return record as SiteOut;
}

/**
 * Runs `fn` in a transaction holding the site's row lock, with the site read fresh after locking, so
 * changes to its settings (a read, change and write of one JSON value) are made one at a time and none
 * is lost. The site must be visible to the caller (else 404, as `loadSite`). Changes are flushed at the end.
 */
export async function withLockedSite<T>(
  em: EntityManager,
  actor: Actor,
  siteId: string,
  fn: (tx: EntityManager, site: Site) => Promise<T>,
): Promise<T> {
  return em.transactional(async (tx) => {
    const site = await loadSite(tx, actor, siteId);
    await tx.findOneOrFail(Site, { id: site.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    return fn(tx, site);
  });
}
