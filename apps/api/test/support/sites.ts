import type { EntityManager } from '@mikro-orm/postgresql';
import { type Orm, Site, Workspace } from '@us/db';
import type { Scope, SiteSettings } from '@us/shared';
import type { Deps } from '../../src/core/deps.ts';
import { newSealedInternalKey } from '../../src/features/internal-link/internal-key.ts';
import { newInternalKey } from '../../src/features/internal-link/mark.ts';
import { createKeyRow } from '../../src/features/site-keys/keys.ts';
import { newSiteSettings } from '../../src/features/sites/settings-values.ts';
import { ownerWithToken, type TestServer, type UserOptions } from './server.ts';

/**
 * Factory: a new owner with a token (sites scopes unless told otherwise) and one site made through the
 * API. `publicKey` is the site's public key record from the creation answer.
 */
export async function siteOfNewOwner(t: TestServer, opts: { name?: string; scopes?: Scope[] } = {}) {
  const o = await ownerWithToken(t.deps, opts.scopes ?? ['sites:read', 'sites:write']);
  const res = await t.request
    .post('/v1/sites')
    .set('Authorization', o.auth)
    .send({ name: opts.name ?? 'Test site' })
    .expect(201);
  return { ...o, siteId: res.body.site.id as string, publicKey: res.body.publicKey };
}

export interface SiteFactoryOptions {
  /** The workspace's id, or its entity in the same EntityManager (not yet flushed is fine). */
  workspace: string | Workspace;
  name?: string;
  timezone?: string;
  /** Replaces lists of the default settings (the rest stay as a new site has them). */
  settings?: Partial<SiteSettings>;
  retentionDays?: number | null;
  /**
   * The server's ciphers: the internal key is sealed with them, as site creation stores it. Without them it is
   * stored in plain text, as sites made before keys were sealed have it (the start seals those).
   */
  ciphers?: Pick<Deps['ciphers'], 'internalKey'>;
}

/**
 * Factory: a site straight through the ORM, as site creation leaves it (default settings from the real
 * generator, an internal key, a public key), flushed. For tests that need a site without the HTTP round trip.
 */
export async function createSite(
  em: EntityManager,
  opts: SiteFactoryOptions,
): Promise<{ site: Site; siteId: string; publicKey: string }> {
  const site = em.create(Site, {
    workspace: opts.workspace,
    name: opts.name ?? 'Test site',
    timezone: opts.timezone ?? 'UTC',
    settings: { ...newSiteSettings(), ...opts.settings },
    ...(opts.ciphers ? { internalKeyEnc: newSealedInternalKey(opts.ciphers) } : { internalKey: newInternalKey() }),
    retentionDays: opts.retentionDays ?? null,
  });
  const publicKey = createKeyRow(em, site.id, 'public').value;
  await em.flush();
  return { site, siteId: site.id, publicKey };
}

/** Factory: a site (named `${workspaceName} site` unless told otherwise) in a new workspace of its own. */
export async function siteInNewWorkspace(orm: Orm, workspaceName: string, opts: Omit<SiteFactoryOptions, 'workspace'> = {}) {
  const em = orm.em.fork();
  const workspace = em.create(Workspace, { name: workspaceName });
  return createSite(em, { name: `${workspaceName} site`, ...opts, workspace });
}

/**
 * Factory: a new owner with a token of `scopes` (sites scopes unless told otherwise), as `ownerWithToken`,
 * and one site of the workspace (`siteName`, default "Shop") made through the ORM.
 */
export async function ownerWithSite(t: TestServer, opts: UserOptions & { scopes?: Scope[]; siteName?: string } = {}) {
  const { scopes = ['sites:read', 'sites:write'], siteName = 'Shop', ...user } = opts;
  const o = await ownerWithToken(t.deps, scopes, user);
  const { site } = await createSite(t.deps.orm.em.fork(), { workspace: o.workspace.id, name: siteName, ciphers: t.deps.ciphers });
  return { ...o, site };
}
