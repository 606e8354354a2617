// A failing card: a subscription the provider reports `past_due` keeps its plan for a grace period from
// the first time it was (`billing_accounts.past_due_since`, cleared once it is paid again). After that the
// hourly billing job asks the provider once more (a card updated at the last moment, its event not here yet,
// keeps the plan), moves the workspace to Free (switchPlan, so its month bills the paid part) and cancels the
// subscription at the provider; a cancel that fails is tried again next hour.
import type { SqlConnection } from '@us/db';
import { ENDED_STATUSES } from './accounts.ts';
import { applyRead, databaseNow } from './events.ts';
import { switchPlan } from './months.ts';
import type { BillingProvider } from './provider.ts';

export const GRACE_DAYS = 14;
/** The provider's statuses of a subscription whose payment still fails, or that ended there: its plan ends. */
const STILL_LAPSED = new Set(['past_due', 'unpaid', 'incomplete', ...ENDED_STATUSES]);
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
  /** Looked at again next hour, behind the others (`failure`: counted as a cancel that failed). */
  const later = async (a: { workspace_id: string; subscription_id: string }, failure = true) => {
    if (failure) failed += 1;
    await conn.execute(
      'update billing_accounts set updated_at = ? where workspace_id = ? and subscription_id = ?',
      [now, a.workspace_id, a.subscription_id],
      'run',
    );
  };
  for (const a of lapsed) {
    if (provider) {
      // Paid at the provider meanwhile (its event late, or still retried): nothing ends. Unknown there: next hour.
      const readAt = await databaseNow(conn);
      const there = await provider.stripe.subscriptions.retrieve(a.subscription_id).catch(() => null);
      if (!there) {
        await later(a);
        continue;
      }
      if (!STILL_LAPSED.has(there.status)) {
        // The provider's state is applied here: with its event lost for good, the account stayed past due (and every
        // upgrade refused) until the next renewal's event, and the provider was asked again every hour.
        const applied = await applyRead(conn, { sub: there, readAt }).catch(() => false);
        if (!applied) await later(a, false);
        continue;
      }
    }
    // Under the account's row lock, still past due: an event that saw it paid since the list was read wins.
    const ends = await conn.transactional(async (trx) => {
      const [still] = await conn.execute<unknown[]>(
        `select 1 from billing_accounts where workspace_id = ? and subscription_id = ? and status = 'past_due'
           and past_due_since <= ? for update`,
        [a.workspace_id, a.subscription_id, new Date(now.getTime() - GRACE_MS)],
        'all',
        trx,
      );
      if (still) await switchPlan(conn, a.workspace_id, 'Free', now, trx);
      return !!still;
    });
    if (!ends || !provider) continue;
    try {
      // No credit: the time was not paid for. The provider's own event about it changes nothing more.
      await provider.stripe.subscriptions.cancel(a.subscription_id, {}, { idempotencyKey: `lapsed:${a.subscription_id}` });
    } catch {
      // Already ended there (its event not here yet) is done too; anything else is tried again next hour.
      const there = await provider.stripe.subscriptions.retrieve(a.subscription_id).catch(() => null);
      if (!there || !ENDED_STATUSES.has(there.status)) {
        await later(a);
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
