import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiToken } from '@us/db';
import { type Role, scopesOfRole } from '@us/shared';
import { noteTokensEnded } from '../../actor/token-cache.ts';

/**
 * Revokes the given tokens and, at once, every token made by them, and theirs (the whole subtree
 * through `parent_token`). Returns how many tokens were live and are now revoked. `deleteLinks`: the shared links,
 * alert rules and e-mail reports made with them go too, and their pending invitations are withdrawn (a token revoked
 * as such, or by its maker's password reset);
 * a maker who left keeps them stopped instead, for an owner to take over.
 */
export async function revokeTokenTrees(
  em: EntityManager,
  rootIds: string[],
  opts: { deleteLinks?: boolean } = {},
): Promise<number> {
  if (rootIds.length === 0) return 0;
  const rows = await em.execute<{ id: string; token_hash: string }[]>(
    `with recursive tree(id) as (
       select id from api_tokens where id = any(?::uuid[])
       union
       select t.id from api_tokens t join tree on t.parent_token = tree.id
     )
     update api_tokens set revoked_at = now()
      where id in (select id from tree) and revoked_at is null
      returning id, token_hash`,
    [`{${rootIds.join(',')}}`],
  );
  noteTokensEnded(rows.map((r) => r.token_hash));
  if (opts.deleteLinks) {
    await deleteLinksMadeWith(
      em,
      rows.map((r) => r.id),
    );
  }
  return rows.length;
}

/**
 * What hands the site's figures out made with these tokens goes with them: a leaked token's holder could make a
 * shared link, an alert with a webhook or an e-mail report to an address of theirs, and keep reading the site
 * through it for as long as it stood, the token revoked or not.
 */
async function deleteLinksMadeWith(em: EntityManager, tokenIds: string[]): Promise<void> {
  if (tokenIds.length === 0) return;
  const ids = `{${tokenIds.join(',')}}`;
  await em.execute('delete from share_links where created_by_token = any(?::uuid[])', [ids]);
  await em.execute('delete from alerts where created_by_token = any(?::uuid[])', [ids]);
  await em.execute('delete from email_reports where created_by_token = any(?::uuid[])', [ids]);
  await em.execute(
    'update invites set withdrawn_at = now() where created_by_token = any(?::uuid[]) and accepted_at is null and withdrawn_at is null',
    [ids],
  );
}

/** Every live token the person made, in every workspace, and theirs, with their shared links (a password reset). */
export async function revokeTokensMadeBy(em: EntityManager, userId: string): Promise<number> {
  const rows = await em.execute<{ id: string }[]>('select id from api_tokens where created_by_id = ? and revoked_at is null', [
    userId,
  ]);
  return revokeTokenTrees(
    em,
    rows.map((r) => r.id),
    { deleteLinks: true },
  );
}

/** A maker removed from the workspace (or leaving) loses every token they made there. */
export async function revokeMemberTokens(em: EntityManager, workspaceId: string, userId: string): Promise<number> {
  const tokens = await em.find(ApiToken, { workspace: workspaceId, createdBy: userId, revokedAt: null }, { fields: ['id'] });
  return revokeTokenTrees(
    em,
    tokens.map((t) => t.id),
  );
}

/** A maker demoted to `role` loses every token they made there holding a scope the role lacks. */
export async function revokeTokensBeyondRole(
  em: EntityManager,
  workspaceId: string,
  userId: string,
  role: Role,
): Promise<number> {
  const allowed = new Set<string>(scopesOfRole(role));
  const tokens = await em.find(ApiToken, { workspace: workspaceId, createdBy: userId, revokedAt: null });
  return revokeTokenTrees(
    em,
    tokens.filter((t) => t.scopes.some((s) => !allowed.has(s))).map((t) => t.id),
  );
}
