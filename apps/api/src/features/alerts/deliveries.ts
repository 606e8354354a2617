// GET /v1/sites/{id}/alerts/{alert}/deliveries: the periods a rule fired for, newest first, in pages (a
// keyset cursor: the time and id of the last one shown).
import type { EntityManager } from '@mikro-orm/postgresql';
import { ALERT_LIMITS, type AlertDeliveriesInput, type AlertDelivery } from '@us/shared';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { readInstantCursor } from '../../core/instant-cursor.ts';
import { changePercent } from './evaluate.ts';
import { NO_ALERT } from './rules.ts';

interface DeliveryRow {
  id: string;
  period: string;
  fired_at: Date;
  current: number;
  baseline: number | null;
  mails: number;
  mails_held: number;
  webhook: AlertDelivery['webhook'];
  webhook_status: number | null;
}

const toDelivery = (r: DeliveryRow): AlertDelivery => ({
  id: r.id,
  period: r.period,
  firedAt: new Date(r.fired_at).toISOString(),
  current: r.current,
  baseline: r.baseline,
  changePercent: changePercent({ current: r.current, baseline: r.baseline }),
  mails: r.mails,
  mailsHeld: r.mails_held,
  webhook: r.webhook,
  webhookStatus: r.webhook_status,
});

export async function listDeliveries(em: EntityManager, actor: Actor, input: AlertDeliveriesInput) {
  const site = await loadSite(em, actor, input.id);
  const [rule] = isUuid(input.alert)
    ? await em.execute<{ id: string }[]>('select id from alerts where id = ? and site_id = ?', [input.alert, site.id])
    : [];
  if (!rule) throw NO_ALERT();
  const limit = input.limit ?? ALERT_LIMITS.defaultPage;
  const after = input.cursor ? readInstantCursor(input.cursor, 'next') : null;
  const rows = await em.execute<DeliveryRow[]>(
    `select id, period, fired_at, current, baseline, mails, mails_held, webhook, webhook_status from alert_deliveries
      where alert_id = ? ${after ? 'and (fired_at, id) < (?::timestamptz, ?::uuid)' : ''}
      order by fired_at desc, id desc limit ?`,
    after ? [rule.id, after.at, after.id, limit + 1] : [rule.id, limit + 1],
  );
  const deliveries = rows.slice(0, limit).map(toDelivery);
  const last = deliveries.at(-1);
  return { deliveries, next: rows.length > limit && last ? `${last.firedAt}_${last.id}` : null };
}
