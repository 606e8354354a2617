// The site owner's side of shared links (dashboard-only `shares.list`, `shares.create`, `shares.revoke`,
// `shares.takeOver`): a link opens one site's dashboard read-only for whoever holds it, optionally behind a
// password, while the member who made it is still in the workspace (actor/makers.ts).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SHARE_LINKS_PER_SITE, type ShareLink } from '@us/shared';
import { isUuid, loadSite, responsibleUserId, tokenOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { makerIsMember } from '../../actor/makers.ts';
import { checkStillEntitled } from '../../actor/still-entitled.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, forbidden } from '../../core/errors.ts';
import { hashPassword } from '../../core/security/passwords.ts';
import { randomToken, sha256 } from '../../core/security/tokens.ts';
import { canManageOwners } from '../members/index.ts';
import { checkSiteLimit } from '../sites/index.ts';

interface LinkRow {
  id: string;
  label: string;
  token_enc: string;
  has_password: boolean;
  allow_embedding: boolean;
  created_at: Date;
  last_opened_at: Date | null;
  maker_is_member: boolean;
}

const COLUMNS = `id, label, token_enc, password_hash is not null as has_password, allow_embedding, created_at, last_opened_at,
  ${makerIsMember('share_links')} as maker_is_member`;

/** The address a link is handed out as: the dashboard app's `/share/<token>`. */
export const shareUrl = (deps: Pick<Deps, 'urls'>, token: string) => `${deps.urls.app.replace(/\/$/, '')}/share/${token}`;

function toLink(deps: Pick<Deps, 'urls' | 'ciphers'>, r: LinkRow): ShareLink {
  return {
    id: r.id,
    label: r.label,
    url: shareUrl(deps, deps.ciphers.share.decrypt(r.token_enc)),
    hasPassword: r.has_password,
    allowEmbedding: r.allow_embedding,
    createdAt: new Date(r.created_at).toISOString(),
    lastOpenedAt: r.last_opened_at ? new Date(r.last_opened_at).toISOString() : null,
    creatorLeft: !r.maker_is_member,
  };
}

export async function listShareLinks(deps: Deps, em: EntityManager, actor: Actor, siteId: string) {
  const site = await loadSite(em, actor, siteId);
  const rows = await em.execute<LinkRow[]>(`select ${COLUMNS} from share_links where site_id = ? order by created_at, id`, [
    site.id,
  ]);
  return { links: rows.map((r) => toLink(deps, r)) };
}

export async function createShareLink(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { id: string; label: string; password?: string | undefined; allowEmbedding?: boolean | undefined },
) {
  const site = await loadSite(em, actor, input.id);
  const token = `shr_${randomToken(24)}`;
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const row = await em.transactional(async (tx) => {
    await checkSiteLimit(
      tx,
      site.id,
      'share_links',
      SHARE_LINKS_PER_SITE,
      `A site has at most ${SHARE_LINKS_PER_SITE} shared links: revoke one you no longer hand out, then try again`,
    );
    // The caller's token or membership ended meanwhile (a revocation deletes what it made): nothing is made.
    await checkStillEntitled(tx, actor, site.workspace.id, ['analytics:read', 'sites:write']);
    const id = randomUUID();
    await tx.execute(
      `insert into share_links (id, site_id, workspace_id, label, token_hash, token_enc, password_hash, allow_embedding, created_by, created_by_token)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        site.id,
        site.workspace.id,
        input.label,
        sha256(token),
        deps.ciphers.share.encrypt(token),
        passwordHash,
        input.allowEmbedding ?? false,
        responsibleUserId(actor),
        // A link made with a token goes when the token is revoked (features/tokens/revocation.ts).
        tokenOf(actor),
      ],
    );
    // Read back apart from the insert: its columns hold a subquery, which Citus takes in no INSERT.
    const rows = await tx.execute<LinkRow[]>(`select ${COLUMNS} from share_links where id = ?`, [id]);
    return rows[0] as LinkRow;
  });
  return { link: toLink(deps, row) };
}

/** Deletes the link: views opened with it are refused from their next call. */
export async function revokeShareLink(em: EntityManager, actor: Actor, input: { id: string; linkId: string }) {
  const site = await loadSite(em, actor, input.id);
  const gone = isUuid(input.linkId)
    ? await em.execute<{ id: string }[]>('delete from share_links where id = ? and site_id = ? returning id', [
        input.linkId,
        site.id,
      ])
    : [];
  if (gone.length === 0) throw missingLink();
  return { revoked: true as const };
}

const missingLink = () =>
  new AppError(404, 'No such shared link on this site: it may have been revoked already; reload the list');

/**
 * An owner makes the link theirs (typically one whose maker left, which then opens again at the same
 * address). Owners only: the link then hands out the site's figures in their name.
 */
export async function takeOverShareLink(deps: Deps, em: EntityManager, actor: Actor, input: { id: string; linkId: string }) {
  const site = await loadSite(em, actor, input.id);
  if (!(await canManageOwners(em, actor))) {
    throw forbidden('Only an owner can take over a shared link: ask an owner of this workspace');
  }
  if (!isUuid(input.linkId)) throw missingLink();
  const rows = await em.execute<LinkRow[]>(
    // The owner's now: no longer the token it was made with (revoking that token deleted the owner's link).
    `update share_links set created_by = ?, created_by_token = null where id = ? and site_id = ? returning ${COLUMNS}`,
    [responsibleUserId(actor), input.linkId, site.id],
  );
  const row = rows[0];
  if (!row) throw missingLink();
  return { link: toLink(deps, row) };
}
