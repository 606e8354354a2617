// Opening a shared link (public `shares.open`): the link's secret, and its password when it has one,
// give a view: a signed, 12-hour pass the view's own calls carry as X-Share-View.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OpenShareOutput } from '@us/shared';
import { makerIsMember } from '../../actor/makers.ts';
import { signView } from '../../actor/share-view.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { dummyVerify, verifyPassword } from '../../core/security/passwords.ts';
import { sha256 } from '../../core/security/tokens.ts';
import { addressTag, countGuess } from '../auth/index.ts';

/** Links one client address may open per minute (right or wrong), so secrets cannot be swept. */
export const SHARE_OPENS_PER_ADDRESS_PER_MINUTE = 60;
/** Password guesses per link per quarter hour, from anywhere. */
export const SHARE_PASSWORD_GUESSES = 10;
const GUESS_WINDOW_SECONDS = 900;

interface OpenRow {
  id: string;
  password_hash: string | null;
  site_id: string;
  name: string;
  timezone: string;
}

const missing = () => new AppError(404, 'This shared link does not exist or was revoked: ask whoever shared it for a new one');

export async function openShare(
  deps: Deps,
  em: EntityManager,
  ip: string | undefined,
  input: { token: string; password?: string | undefined },
): Promise<OpenShareOutput> {
  await countGuess(
    deps.hot,
    `share-open:ip:${addressTag(deps.hot, ip ?? 'unknown')}`,
    SHARE_OPENS_PER_ADDRESS_PER_MINUTE,
    60,
    (wait) => `Too many shared links opened from this address: wait ${wait} seconds, then try again`,
  );
  const rows = await em.execute<OpenRow[]>(
    `select l.id, l.password_hash, s.id as site_id, s.name, s.timezone
       from share_links l join sites s on s.id = l.site_id where l.token_hash = ? and ${makerIsMember('l')}`,
    [sha256(input.token)],
  );
  const link = rows[0];
  // A link whose maker left the workspace answers as an unknown one: nothing to learn from it.
  if (!link) {
    // The same time as a wrong password, so answers do not tell which links have one.
    if (input.password !== undefined) await dummyVerify(input.password);
    throw missing();
  }
  if (link.password_hash !== null) {
    if (input.password === undefined) {
      throw new AppError(401, 'This dashboard is protected: type the password you were given with the link', {
        field: 'password',
      });
    }
    const guesses = `share-password:${link.id}`;
    await countGuess(
      deps.hot,
      guesses,
      SHARE_PASSWORD_GUESSES,
      GUESS_WINDOW_SECONDS,
      (wait) => `Too many wrong passwords for this link: wait ${Math.ceil(wait / 60)} minutes, then try again`,
    );
    if (!(await verifyPassword(link.password_hash, input.password))) {
      throw new AppError(401, 'Wrong password: check it with whoever shared the link', { field: 'password' });
    }
    // Counted before checking (guesses sent at once each count); a right one is no guess: it gives its count back.
    await deps.hot.decrBy(guesses, 1).catch(() => undefined);
  }
  await em.execute('update share_links set last_opened_at = now() where id = ?', [link.id]);
  const { view, expiresAt } = signView(deps.ciphers.share, link.id);
  return {
    view,
    expiresAt: expiresAt.toISOString(),
    site: { id: link.site_id, name: link.name, timezone: link.timezone },
  };
}
