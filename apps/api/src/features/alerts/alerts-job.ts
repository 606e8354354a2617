// The alerts job (every 5 minutes, under one advisory lock so one node runs it at a time): first the
// deliveries a stopped run left unsent (features/alerts/delivery.ts), then each enabled rule looked at once per
// closed period (features/alerts/check.ts), then the webhooks, all at once, each with its own tries and time limit.
import type { Orm } from '@us/db';
import { type JobRunOptions, withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { checkRule, rulesSql } from './check.ts';
import { resumeDeliveries } from './delivery.ts';
import type { AlertDeps, PendingHook, RuleRow } from './rule-columns.ts';
import { postWithRetries } from './webhook.ts';

async function sendHook(deps: AlertDeps, orm: Orm, hook: PendingHook, logger: Pick<Logger, 'warn'> | undefined) {
  let secret: string;
  try {
    secret = deps.ciphers.alerts.decrypt(hook.sealedSecret);
  } catch {
    // Sealed under another APP_SECRET (changed, or a backup restored under another): it never opens. Left pending, the
    // delivery was taken again every run, and 200 such filled the window of every workspace's resumed deliveries.
    await orm.em.fork().execute("update alert_deliveries set webhook = 'failed' where id = ?", [hook.deliveryId]);
    logger?.warn(
      `jobs: an alert webhook's signing secret cannot be read (APP_SECRET changed?): not sent; saving the rule's webhook URL again makes a new one`,
    );
    return;
  }
  const outcome = await postWithRetries(hook.url, hook.body, secret, {
    allowLoopback: deps.env.ALERT_WEBHOOKS_TO_LOOPBACK,
    sleep: deps.sleep,
  });
  await orm.em
    .fork()
    .execute('update alert_deliveries set webhook = ?, webhook_status = ? where id = ?', [
      outcome.ok ? 'sent' : 'failed',
      outcome.status,
      hook.deliveryId,
    ]);
  if (!outcome.ok)
    logger?.warn(`jobs: an alert webhook was not taken (last answer: ${outcome.status ?? 'none'}); it is not sent again`);
}

export async function runAlerts(
  orm: Orm,
  deps: AlertDeps,
  opts: JobRunOptions = {},
): Promise<{ ran: boolean; fired: number; failed: number }> {
  if (opts.siteIds?.length === 0) return { ran: true, fired: 0, failed: 0 };
  const now = opts.now ?? new Date();
  const run = await withJobLock(
    orm,
    'alerts',
    async () => {
      const em = orm.em.fork();
      const hooks: Promise<void>[] = [];
      const send = (hook: PendingHook) =>
        hooks.push(
          sendHook(deps, orm, hook, opts.logger).catch((e) =>
            opts.logger?.error(`jobs: the webhook of alert delivery ${hook.deliveryId} could not be sent`, e),
          ),
        );
      // First what a stopped run claimed and did not send: it is older than anything this run fires.
      const unfinished = await resumeDeliveries(deps, em, opts.siteIds, opts.logger);
      for (const hook of unfinished.hooks) send(hook);
      const rules = await em.execute<RuleRow[]>(rulesSql(opts.siteIds), opts.siteIds ?? []);
      let fired = 0;
      let failed = unfinished.failed;
      for (const rule of rules) {
        try {
          const outcome = await checkRule(deps, em, rule, now, opts.logger);
          if (outcome.fired) fired++;
          if (outcome.hook) send(outcome.hook);
        } catch (e) {
          failed++;
          opts.logger?.error(
            `jobs: alert ${rule.id} of site ${rule.site_id} could not be looked at; tried again at the next run`,
            e,
          );
        }
      }
      await Promise.allSettled(hooks);
      return { fired, failed };
    },
    { wait: opts.wait },
  );
  return run.ran ? { ran: true, ...run.result } : { ran: false, fired: 0, failed: 0 };
}
