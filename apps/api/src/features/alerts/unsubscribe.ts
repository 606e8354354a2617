// One-click unsubscribe from an alert's e-mail (public `alerts.unsubscribe`): the link carries the
// recipient's id and an HMAC of it (the reports wing's signed links, with the alerts' key), so it cannot be
// made up for another address. It takes the address off that one rule for good (its row stays, marked, so a
// change of the rule listing it again cannot add it back); its other mail is left as it is.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { idOfUnsubscribeToken, unsubscribeToken } from '../reports/index.ts';

export const alertUnsubscribeLink = (deps: Pick<Deps, 'urls' | 'ciphers'>, recipientId: string) =>
  `${deps.urls.app.replace(/\/$/, '')}/unsubscribe-alert?token=${unsubscribeToken(deps.ciphers.alerts, recipientId)}`;

export async function unsubscribeFromAlert(deps: Pick<Deps, 'ciphers'>, em: EntityManager, token: string) {
  const id = idOfUnsubscribeToken(deps.ciphers.alerts, token);
  const [row] = id
    ? await em.execute<{ address: string; name: string }[]>(
        `update alert_recipients ar set unsubscribed_at = now() from alerts a, sites s
          where ar.id = ? and ar.unsubscribed_at is null and a.id = ar.alert_id and s.id = a.site_id
          returning ar.address, s.name`,
        [id],
      )
    : [];
  if (!row) {
    throw new AppError(
      404,
      'This unsubscribe link is not valid, or the address was already taken off the alert: nothing more is sent with it',
    );
  }
  return { address: row.address, siteName: row.name };
}
