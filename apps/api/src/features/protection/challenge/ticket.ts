import type { EntityManager } from '@mikro-orm/postgresql';
import { readTicket, type Ticket, unseal } from '@us/protection';
import type { Deps } from '../../../core/deps.ts';
import { isHostname, isReturnHostname, isReturnPath, returnUrl } from './return-target.ts';
import { passKeyForToken, tokenOf } from './site-key.ts';

export type TicketCheck =
  /** Not a ticket of any site, tampered with, or carrying a host or path we would never send anyone to. */
  | { kind: 'bad' }
  /** Signed and well formed but past its ten minutes; `back` when its host is still one of the site's. */
  | { kind: 'expired'; back?: { host: string; url: string } }
  /** Signed, but the hostname is not (or no longer) a verified or active hostname of the site. */
  | { kind: 'notVerified' }
  | { kind: 'ok'; token: string; ticket: Ticket; siteId: string; passKey: string };

/**
 * Everything the check page needs to trust a ticket: the site it names (its pass key), the signature,
 * the expiry, a hostname the site has proven and a path that stays on it. Only then may anything in it
 * become a link or a redirect.
 */
export async function checkTicket(
  deps: Pick<Deps, 'ciphers'>,
  em: EntityManager,
  raw: unknown,
  now = Date.now(),
): Promise<TicketCheck> {
  const token = tokenOf(raw);
  if (!token) return { kind: 'bad' };
  const key = await passKeyForToken(deps, em, token);
  if (!key) return { kind: 'bad' };
  const sealed = await unseal<Partial<Ticket>>(key.passKey, token);
  if (!sealed || typeof sealed !== 'object' || sealed.s !== key.siteId) return { kind: 'bad' };
  if (!isHostname(sealed.h) || !isReturnPath(sealed.p)) return { kind: 'bad' };
  const proven = await isReturnHostname(em, key.siteId, sealed.h);
  const ticket = await readTicket(key.passKey, token, now);
  if (!ticket) {
    if (typeof sealed.e !== 'number') return { kind: 'bad' };
    return proven ? { kind: 'expired', back: { host: sealed.h, url: returnUrl(sealed.h, sealed.p) } } : { kind: 'expired' };
  }
  if (!proven) return { kind: 'notVerified' };
  return { kind: 'ok', token, ticket, siteId: key.siteId, passKey: key.passKey };
}
