// An owner takes an alert rule over (dashboard-only `alerts.takeOver`): one whose maker left the workspace
// is looked at again, in the taker's name (actor/makers.ts), as e-mail reports are taken over.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Alert, AlertParams } from '@us/shared';
import { isUuid, loadSite, responsibleUserId } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { forbidden } from '../../core/errors.ts';
import { canManageOwners } from '../members/index.ts';
import { alertsOf, NO_ALERT } from './rules.ts';

/** Owners only: the rule then sends the site's figures in their name. */
export async function takeOverAlert(em: EntityManager, actor: Actor, input: AlertParams): Promise<{ alert: Alert }> {
  const site = await loadSite(em, actor, input.id);
  if (!(await canManageOwners(em, actor))) {
    throw forbidden('Only an owner can take over an alert: ask an owner of this workspace');
  }
  const taken = isUuid(input.alert)
    ? await em.execute('update alerts set created_by = ?, created_by_token = null where id = ? and site_id = ? returning id', [
        responsibleUserId(actor),
        input.alert,
        site.id,
      ])
    : [];
  const [alert] = taken.length ? await alertsOf(em, site.id, input.alert) : [];
  if (!alert) throw NO_ALERT();
  return { alert };
}
