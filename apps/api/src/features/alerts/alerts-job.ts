// The alerts job (every 5 minutes, under one advisory lock so one node runs it at a time): each enabled
// rule looked at once per closed period (features/alerts/check.ts), then the webhooks of the rules that
// fired, all at once, each with its own tries and time limit.
import type { Orm } from '@us/db';
import { type JobRunOptions, withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { type AlertDeps, checkRule, type PendingHook, type RuleRow, rulesSql } from './check.ts';
import { postWithRetries } from './webhook.ts';

async function sendHook(deps: AlertDeps, orm: Orm, hook: PendingHook, logger: Pick<Logger, 'warn'> | undefined) {
  const secret = deps.ciphers.alerts.decrypt(hook.sealedSecret);
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
      const rules = await em.execute<RuleRow[]>(rulesSql(opts.siteIds), opts.siteIds ?? []);
      const hooks: Promise<void>[] = [];
      let fired = 0;
      let failed = 0;
      for (const rule of rules) {
        try {
          const outcome = await checkRule(deps, em, rule, now, opts.logger);
          if (outcome.fired) fired++;
          if (outcome.hook) {
            hooks.push(
              sendHook(deps, orm, outcome.hook, opts.logger).catch((e) =>
                opts.logger?.error(`jobs: the webhook of alert ${rule.id} could not be sent`, e),
              ),
            );
          }
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
