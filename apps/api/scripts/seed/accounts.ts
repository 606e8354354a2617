// Idempotent set-up of the accounts and sites generated traffic belongs to (by e-mail and by name).
import type { EntityManager } from '@mikro-orm/postgresql';
import { Membership, Site, SiteHostname, SiteKey, User, Workspace } from '@us/db';
import { hashPassword } from '../../src/core/security/passwords.ts';
import { newVerifyToken } from '../../src/features/hostnames/view.ts';
import { newInternalKey } from '../../src/features/internal-link/mark.ts';
import { createKeyRow } from '../../src/features/site-keys/keys.ts';
import { newSiteSettings } from '../../src/features/sites/settings-values.ts';

export interface Account {
  user: User;
  workspace: Workspace;
  createdUser: boolean;
  createdWorkspace: boolean;
}

/**
 * The user with this e-mail (created, or its password set to `password` so the printed sign-in works)
 * and the workspace of that name the user owns (created with an owner membership when missing).
 */
export async function ensureAccount(
  em: EntityManager,
  opts: { email: string; password: string; workspaceName: string },
): Promise<Account> {
  const passwordHash = await hashPassword(opts.password);
  let user = await em.findOne(User, { email: opts.email });
  const createdUser = !user;
  if (!user) user = em.create(User, { email: opts.email, passwordHash, emailVerifiedAt: new Date() });
  else {
    user.passwordHash = passwordHash;
    user.emailVerifiedAt ??= new Date();
  }
  await em.flush();
  const membership = await em.findOne(
    Membership,
    { user: user.id, workspace: { name: opts.workspaceName } },
    { populate: ['workspace'] },
  );
  let workspace = membership?.workspace as Workspace | undefined;
  const createdWorkspace = !workspace;
  if (!workspace) {
    workspace = em.create(Workspace, { name: opts.workspaceName });
    em.create(Membership, { workspace, user, role: 'owner' });
    await em.flush();
  }
  return { user, workspace, createdUser, createdWorkspace };
}

export interface SeededSite {
  site: Site;
  publicKey: string;
  created: boolean;
}

/** The workspace's site of this name (created when missing) with `hostname` (verified) and a public key. */
export async function ensureSite(
  em: EntityManager,
  opts: { workspaceId: string; name: string; hostname: string; timezone: string; settings?: Record<string, unknown> },
): Promise<SeededSite> {
  let site = await em.findOne(Site, { workspace: opts.workspaceId, name: opts.name });
  const created = !site;
  if (!site) {
    site = em.create(Site, {
      workspace: opts.workspaceId,
      name: opts.name,
      timezone: opts.timezone,
      settings: { ...newSiteSettings(), ...opts.settings },
      internalKey: newInternalKey(),
      lastSeenAt: null,
    });
    await em.flush();
  }
  const host = await em.findOne(SiteHostname, { site: site.id, hostname: opts.hostname });
  if (!host) {
    em.create(SiteHostname, {
      site,
      hostname: opts.hostname,
      proxy: false,
      origin: null,
      verifyToken: newVerifyToken(),
      verifiedAt: new Date(),
      edgeId: null,
      edgeStatus: null,
    });
  }
  const key = await em.findOne(SiteKey, { site: site.id, kind: 'public' });
  const publicKey = key?.publicValue ?? createKeyRow(em, site.id, 'public').value;
  await em.flush();
  return { site, publicKey, created };
}
