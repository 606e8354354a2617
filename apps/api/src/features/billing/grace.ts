// A failing card: a subscription the provider reports `past_due` keeps its plan for a grace period from
// the first time it was (`billing_accounts.past_due_since`, cleared once it is paid again). After that the
// hourly billing job moves the workspace to Free (switchPlan, so its month bills the paid part) and
// cancels the subscription at the provider; a cancel that fails is tried again next hour.
import type { SqlConnection } from '@us/db';
import { ENDED_STATUSES } from './accounts.ts';
import { switchPlan } from './months.ts';
import type { BillingProvider } from './provider.ts';

export const GRACE_DAYS = 14;
const GRACE_MS = GRACE_DAYS * 86_400_000;

/** When a past-due subscription's plan ends unless the card is updated; null when nothing is due. */
export function graceEndsAt(account: { status: string | null; pastDueSince: Date | null }): Date | null {
  if (account.status !== 'past_due' || !account.pastDueSince) return null;
  return new Date(account.pastDueSince.getTime() + GRACE_MS);
}

/**
 * Ends the plans whose grace period is over at `now`, at most `perRun`. Answers how many ended and how many
 * cancels failed. One whose cancel failed goes behind the others (its `updated_at` is the failure's): ordered by
 * the grace period's start alone, 500 such accounts would come first every run and no newer one would end.
 */
export async function endLapsedSubscriptions(
  conn: SqlConnection,
  provider: BillingProvider | null,
  now: Date,
  perRun = 500,
): Promise<{ ended: number; failed: number }> {
  const lapsed = await conn.execute<{ workspace_id: string; subscription_id: string }[]>(
    `select workspace_id::text as workspace_id, subscription_id from billing_accounts
      where status = 'past_due' and subscription_id is not null and past_due_since <= ?
      order by updated_at, past_due_since limit ?`,
    [new Date(now.getTime() - GRACE_MS), perRun],
    'all',
  );
  let failed = 0;
  for (const a of lapsed) {
    await switchPlan(conn, a.workspace_id, 'Free', now);
    if (!provider) continue;
    try {
      // No credit: the time was not paid for. The provider's own event about it changes nothing more.
      await provider.stripe.subscriptions.cancel(a.subscription_id, {}, { idempotencyKey: `lapsed:${a.subscription_id}` });
    } catch {
      // Already ended there (its event not here yet) is done too; anything else is tried again next hour.
      const there = await provider.stripe.subscriptions.retrieve(a.subscription_id).catch(() => null);
      if (!there || !ENDED_STATUSES.has(there.status)) {
        failed += 1;
        await conn.execute(
          'update billing_accounts set updated_at = ? where workspace_id = ? and subscription_id = ?',
          [now, a.workspace_id, a.subscription_id],
          'run',
        );
        continue;
      }
    }
    await conn.execute(
      `update billing_accounts set status = 'canceled', past_due_since = null, updated_at = now()
        where workspace_id = ? and subscription_id = ? and status = 'past_due'`,
      [a.workspace_id, a.subscription_id],
      'run',
    );
  }
  return { ended: lapsed.length, failed };
}
