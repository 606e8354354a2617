// One-click unsubscribe from a report e-mail (public `reports.unsubscribe`): the link carries the report's
// id and an HMAC of it with the app secret, so it cannot be made up for another report.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../../actor/access.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import type { Cipher } from '../../core/security/cipher.ts';
import { safeEqual } from '../../core/security/tokens.ts';

const mac = (cipher: Cipher, reportId: string) => cipher.mac(`unsubscribe\n${reportId}`);

export const unsubscribeToken = (cipher: Cipher, reportId: string) => `${reportId}_${mac(cipher, reportId)}`;

export const unsubscribeLink = (deps: Pick<Deps, 'urls' | 'ciphers'>, reportId: string) =>
  `${deps.urls.app.replace(/\/$/, '')}/unsubscribe-report?token=${unsubscribeToken(deps.ciphers.reports, reportId)}`;

const invalid = () =>
  new AppError(404, 'This unsubscribe link is not valid, or the report was already removed: nothing more will be sent with it');

export async function unsubscribe(deps: Pick<Deps, 'ciphers'>, em: EntityManager, token: string) {
  const [id = '', given = ''] = token.split('_');
  if (!isUuid(id) || !safeEqual(given, mac(deps.ciphers.reports, id))) throw invalid();
  const rows = await em.execute<{ address: string; frequency: string; name: string }[]>(
    `delete from email_reports r using sites s where r.id = ? and s.id = r.site_id
       returning r.address, r.frequency, s.name`,
    [id],
  );
  const row = rows[0];
  if (!row) throw invalid();
  return { address: row.address, siteName: row.name, frequency: row.frequency };
}
