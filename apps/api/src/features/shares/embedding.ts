// Who may show a shared view in a frame: nobody, unless the link's owner allowed embedding; then pages
// on the site's own hostnames whose ownership is proven (the HTML of `/share/<token>` carries them in
// `frame-ancestors`): a hostname anyone with sites:write may add unproven is not the site's until then.
import { SHARE_TOKEN_PATTERN } from '@us/shared';
import { makerIsMember } from '../../actor/makers.ts';
import type { Deps } from '../../core/deps.ts';
import { overBudget } from '../../core/hot/address-budget.ts';
import type { FrameAncestors } from '../../core/http/security-headers.ts';
import { sha256 } from '../../core/security/tokens.ts';
import { INGRESS_LIVE } from '../hostnames/index.ts';

/**
 * A hostname the site has proven its own, as a check may return to it (protection's `isReturnHost`): its TXT record
 * verified, or, in proxy mode, live at the ingress.
 */
const PROVEN_HOSTNAME = `(case when h.proxy then h.edge_status = '${INGRESS_LIVE}' else h.verified_at is not null end)`;

/** The address a link is handed out as (`shareUrl` in links.ts), with or without a trailing slash. */
const SHARE_PATH = /^\/share\/([^/]+)\/?$/;

/**
 * The frame ancestors of the dashboard page at `path`: the site's hostnames for an open link that allows
 * embedding, `'none'` for anything else (another page, an unknown, revoked or stopped link). A failed
 * lookup, or an address past its budget of pages a minute, answers `'none'` too: the view then opens, only not
 * inside a frame.
 */
export async function shareFrameAncestors(
  deps: Pick<Deps, 'orm' | 'logger' | 'hot'>,
  path: string,
  ip: string,
): Promise<FrameAncestors> {
  const token = SHARE_PATH.exec(path)?.[1];
  if (!token || !SHARE_TOKEN_PATTERN.test(token)) return 'none';
  // Counted first: a made-up token per request was a database lookup per request from anyone.
  if (await overBudget(deps.hot, 'sharePage', ip)) return 'none';
  try {
    const rows = await deps.orm.em.fork().execute<{ hostnames: string[] }[]>(
      `select array(select h.hostname from site_hostnames h
                     where h.site_id = l.site_id and ${PROVEN_HOSTNAME}
                     order by h.hostname) as hostnames
         from share_links l where l.token_hash = ? and l.allow_embedding and ${makerIsMember('l')}`,
      [sha256(token)],
    );
    // Stored hostnames are bare and lower-cased; the filter keeps anything else out of a header all the same.
    const hostnames = (rows[0]?.hostnames ?? []).filter((h) => /^[a-z0-9.-]+$/.test(h));
    return hostnames.length > 0 ? hostnames : 'none';
  } catch (err) {
    deps.logger.warn(`shared view: who may frame it could not be read, so nobody may (${String(err)})`);
    return 'none';
  }
}
