// One-click unsubscribe from a report e-mail (public `reports.unsubscribe`): the link carries the report's
// id and an HMAC of it with the app secret, so it cannot be made up for another report. It suppresses the
// address for the report's workspace (core/mail/suppression.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../../actor/access.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { suppress } from '../../core/mail/suppression.ts';
import type { Cipher } from '../../core/security/cipher.ts';
import { safeEqual } from '../../core/security/tokens.ts';

const mac = (cipher: Cipher, reportId: string) => cipher.mac(`unsubscribe\n${reportId}`);

export const unsubscribeToken = (cipher: Cipher, reportId: string) => `${reportId}_${mac(cipher, reportId)}`;

export const unsubscribeLink = (deps: Pick<Deps, 'urls' | 'ciphers'>, reportId: string) =>
  `${deps.urls.app.replace(/\/$/, '')}/unsubscribe-report?token=${unsubscribeToken(deps.ciphers.reports, reportId)}`;

/** The id a link's token was made for, or null when the token was not made with `cipher`. */
export function idOfUnsubscribeToken(cipher: Cipher, token: string): string | null {
  const [id = '', given = ''] = token.split('_');
  return isUuid(id) && safeEqual(given, mac(cipher, id)) ? id : null;
}

const invalid = () =>
  new AppError(404, 'This unsubscribe link is not valid, or the report was already removed: nothing more will be sent with it');

/**
 * Removes every report of the workspace to that address (not only the one the e-mail was about) and every alert
 * rule's place for it, forgets its confirmation, and puts it on the workspace's suppression list: no report, alert
 * or invitation of the workspace is sent to it again.
 */
export async function unsubscribe(deps: Pick<Deps, 'ciphers'>, em: EntityManager, token: string) {
  const id = idOfUnsubscribeToken(deps.ciphers.reports, token);
  if (!id) throw invalid();
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<{ workspace_id: string; address: string; frequency: string; name: string }[]>(
      `select r.workspace_id, r.address, r.frequency, s.name from email_reports r join sites s on s.id = r.site_id
        where r.id = ? for update of r`,
      [id],
    );
    if (!row) throw invalid();
    await tx.execute('delete from email_reports where workspace_id = ? and address = ?', [row.workspace_id, row.address]);
    await tx.execute('delete from report_recipients where workspace_id = ? and address = ?', [row.workspace_id, row.address]);
    // Its alerts too (they share the consent), as saying no does: left on the rules, the address showed as waiting.
    await tx.execute('delete from alert_recipients where workspace_id = ? and address = ?', [row.workspace_id, row.address]);
    await suppress(tx, deps.ciphers.mail, row.workspace_id, row.address);
    return { address: row.address, siteName: row.name, frequency: row.frequency };
  });
}
