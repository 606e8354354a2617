import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, SiteHostname } from '@us/db';
import {
  type CollectHealth,
  type CreateSiteInput,
  type CreateSiteOutput,
  canonicalTimezone,
  type InstallStatusOutput,
  normaliseHostname,
  PLAN_LIMITS,
  type SiteList,
  type SiteOutput,
  type SnippetOutput,
  type UpdateSiteInput,
} from '@us/shared';
import { loadSite, visibleSites, workspaceIdOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { nameFormerZone } from '../../analytics/rollup/rollup-write.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { scriptBuildFor, scriptFeaturesOf, scriptManifest } from '../../core/script-builds.ts';
import { newVerifyToken, releaseEdgeHostnames } from '../hostnames/index.ts';
import { newSealedInternalKey } from '../internal-link/index.ts';
import { lockWorkspace } from '../members/index.ts';
import { createKeyRow, keyRecord, publicKeyOf } from '../site-keys/index.ts';
import { droppedReports } from './dropped-reports.ts';
import { newSiteSettings } from './settings-values.ts';
import { siteRecord, siteRecordOf, siteRecords } from './view.ts';

/**
 * The stored form of a time zone: PostgreSQL's spelling of it, which the rollup and retention jobs match sites'
 * zones by (a name kept in another letter case was never rolled up, and its raw days went unkept). 400 `timezone`
 * when it is not an IANA zone, or one this database does not know.
 */
async function timezoneOf(em: EntityManager, given: string): Promise<string> {
  const zone = canonicalTimezone(given);
  if (zone === null) {
    throw badRequest('timezone', 'Fix timezone: give an IANA time zone such as Europe/Berlin, America/New_York or UTC');
  }
  const [known] = await em.execute<{ name: string }[]>(
    'select name from pg_timezone_names where lower(name) = lower(?) order by name = ? desc, name limit 1',
    [zone, zone],
  );
  if (!known) {
    throw badRequest('timezone', `Fix timezone: this database does not know ${zone}; give another name of the same zone, or UTC`);
  }
  return known.name;
}

/** Hostnames normalised, repeats collapsed, in the order given; a bad one is 400 `hostnames[i]` titled with what is wrong. */
function hostnamesOf(given: readonly string[]): string[] {
  const out: string[] = [];
  given.forEach((text, i) => {
    const check = normaliseHostname(text);
    if (!check.ok) throw badRequest(`hostnames[${i}]`, check.problem);
    if (!out.includes(check.hostname)) out.push(check.hostname);
  });
  return out;
}

/** The workspace's sites, oldest first; a site-restricted token sees only its own. */
export async function listSites(em: EntityManager, actor: Actor): Promise<SiteList> {
  const { sites } = await visibleSites(em, actor);
  return { sites: await siteRecords(em, sites) };
}

/**
 * Makes a site with its hostnames (unverified, each with its own TXT token) and its public key. The
 * workspace row is locked while the sites are counted, so the plan's site allowance (Free 5, Starter
 * 20) cannot be passed by parallel requests: past it, 402.
 */
export async function createSite(
  deps: Pick<Deps, 'ciphers'>,
  em: EntityManager,
  actor: Actor,
  input: CreateSiteInput,
): Promise<CreateSiteOutput> {
  const workspaceId = workspaceIdOf(actor);
  const timezone = await timezoneOf(em, input.timezone ?? 'UTC');
  const hostnames = hostnamesOf(input.hostnames ?? []);

  return em.transactional(async (tx) => {
    const ws = await lockWorkspace(tx, workspaceId);
    const limit = PLAN_LIMITS[ws.plan].sites;
    if (limit !== null && (await tx.count(Site, { workspace: workspaceId })) >= limit) {
      throw new AppError(402, `The ${ws.plan} plan allows ${limit} sites: upgrade the plan, or delete a site you no longer need`);
    }
    const site = tx.create(Site, {
      workspace: workspaceId,
      name: input.name,
      timezone,
      settings: newSiteSettings(),
      internalKeyEnc: newSealedInternalKey(deps.ciphers),
      lastSeenAt: null,
    });
    const now = new Date();
    const rows = hostnames.map((hostname) =>
      tx.create(SiteHostname, {
        createdAt: now,
        site,
        hostname,
        proxy: false,
        origin: null,
        verifyToken: newVerifyToken(),
        verifiedAt: null,
        edgeId: null,
        edgeStatus: null,
      }),
    );
    const { row: key } = createKeyRow(tx, site.id, 'public');
    await tx.flush();
    return { site: siteRecord(site, rows), publicKey: keyRecord(key) };
  });
}

export async function getSite(em: EntityManager, actor: Actor, siteId: string): Promise<SiteOutput> {
  const site = await loadSite(em, actor, siteId);
  return { site: await siteRecordOf(em, site) };
}

export async function updateSite(em: EntityManager, actor: Actor, input: UpdateSiteInput): Promise<SiteOutput> {
  const site = await loadSite(em, actor, input.id);
  if (input.name !== undefined) site.name = input.name;
  if (input.timezone !== undefined) {
    const timezone = await timezoneOf(em, input.timezone);
    if (timezone !== site.timezone) {
      // Its days rolled up so far are counted again in the new zone, and read raw until then.
      await nameFormerZone(em, site.id, site.timezone);
      site.timezone = timezone;
    }
  }
  if (input.retentionDays !== undefined) site.retentionDays = input.retentionDays;
  await em.flush();
  return { site: await siteRecordOf(em, site) };
}

/**
 * Deletes the site; its keys, hostnames and settings go with it, so its keys stop at once. Proxy
 * hostnames are released at the edge platform first (503, nothing deleted, when it cannot be reached).
 */
export async function deleteSite(deps: Deps, em: EntityManager, actor: Actor, siteId: string): Promise<void> {
  const site = await loadSite(em, actor, siteId);
  await releaseEdgeHostnames(deps, em, site.id);
  await em.transactional(async (tx) => {
    // Its stored result days go too: a foreign key cascades on one PostgreSQL, but a distributed table on Citus
    // keeps none to the control plane (packages/db/src/citus.ts).
    await tx.execute('delete from result_days where site_id = ?', [site.id]);
    // Its analytics rows are purged by the deleted sites job (analytics/rollup/site-purge.ts).
    await tx.execute('insert into deleted_sites (site_id) values (?) on conflict do nothing', [site.id]);
    await tx.nativeDelete(Site, { id: site.id });
  });
}

/** What the collector did not store for a site lately: budget drops (hot store) and dead letters. */
async function collectHealth(deps: Pick<Deps, 'hot'>, em: EntityManager, siteId: string): Promise<CollectHealth> {
  const dropped = await droppedReports(deps.hot, siteId);
  const [row] = await em
    .getConnection()
    .execute<{ n: number }[]>(
      `select count(*)::int as n from ingest_dead_letters where site_id = ? and created_at > now() - interval '7 days'`,
      [siteId],
      'all',
    );
  return {
    droppedToday: dropped.today,
    droppedLast7Days: dropped.last7Days,
    droppedByReason: dropped.byReason,
    setAsideLast7Days: row?.n ?? 0,
  };
}

/**
 * Whether a page with the snippet has been viewed (the collector stamps `lastSeenAt` at most once a
 * minute), and what the collector did not store lately.
 */
export async function installStatus(
  deps: Pick<Deps, 'hot'>,
  em: EntityManager,
  actor: Actor,
  siteId: string,
): Promise<InstallStatusOutput> {
  const site = await loadSite(em, actor, siteId);
  const collect = await collectHealth(deps, em, site.id);
  const needsPublicKey = !(await publicKeyOf(em, site.id));
  const lastSeenAt = site.lastSeenAt?.toISOString() ?? null;
  const installed = lastSeenAt !== null;
  if (needsPublicKey) {
    return { installed, lastSeenAt, needsPublicKey, message: NO_PUBLIC_KEY, collect };
  }
  if (lastSeenAt) {
    return {
      installed,
      lastSeenAt,
      needsPublicKey,
      message: `Installed: a page with the snippet was last viewed at ${lastSeenAt}`,
      collect,
    };
  }
  return {
    installed,
    lastSeenAt,
    needsPublicKey,
    message:
      'No page with the snippet has been viewed yet: add the snippet from GET /v1/sites/{id}/snippet to the <head> of your pages, then open one in a browser (the status updates within a minute)',
    collect,
  };
}

/** What the install status and the snippet say of a site whose public key was deleted. */
const NO_PUBLIC_KEY =
  'The snippet needs a new public key: this site has no public key (it was deleted), so its pages report nothing. Create one with POST /v1/sites/{id}/keys (kind public), then replace the snippet in your pages with the new one from GET /v1/sites/{id}/snippet';

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The tag to paste into pages: the page script with the site's public key. */
export async function snippet(deps: Pick<Deps, 'urls'>, em: EntityManager, actor: Actor, siteId: string): Promise<SnippetOutput> {
  const site = await loadSite(em, actor, siteId);
  const key = await publicKeyOf(em, site.id);
  if (!key?.publicValue) {
    throw new AppError(
      409,
      'This site has no public key, so there is no snippet: create one with POST /v1/sites/{id}/keys (kind public), then put the new snippet in your pages',
    );
  }
  // The site's own build: the parts its settings name (settings scriptFeatures), served by its public key.
  const scriptUrl = `${deps.urls.base}/script/${key.publicValue}.js`;
  const features = scriptFeaturesOf(site.settings);
  const manifest = scriptManifest();
  // The script posts to its own origin's /collect unless told otherwise.
  const api = deps.urls.collect === `${deps.urls.base}/collect` ? '' : ` data-api="${attr(deps.urls.collect)}"`;
  return {
    html: `<script defer data-site="${attr(key.publicValue)}"${api} src="${attr(scriptUrl)}"></script>`,
    scriptUrl,
    script: {
      features,
      gzipBytes: scriptBuildFor(features)?.gzip ?? null,
      coreGzipBytes: manifest?.builds.core?.gzip ?? null,
      featureGzipBytes: manifest?.partGzip ?? {},
    },
    siteKey: key.publicValue,
    collectUrl: deps.urls.collect,
  };
}
