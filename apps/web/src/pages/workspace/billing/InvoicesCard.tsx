import { useMutation } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatUsdToCents } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { openProviderPage } from './PlansCard.tsx';

type Billing = RouterOutputs['billing']['get'];

/** The subscription, the closed months with their overage, and the way to invoices (the provider's portal). */
export function InvoicesCard({ billing, canChange }: { billing: Billing; canChange: boolean }) {
  const trpc = useTRPC();
  const portal = useMutation(trpc.billing.portal.mutationOptions({ onSuccess: (r) => openProviderPage(r.url) }));
  const sub = billing.subscription;
  if (!sub && !billing.months.length) return null;
  return (
    <Card
      title="Subscription and invoices"
      aside={
        sub && canChange && billing.configured ? (
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={portal.isPending}
            onClick={() => portal.mutate()}
          >
            {portal.isPending ? 'Opening…' : 'Invoices and payment method'}
          </button>
        ) : undefined
      }
    >
      {portal.error && <Notice tone="error">{toProblem(portal.error).title}</Notice>}
      {sub?.status === 'past_due' && (
        <Notice tone="error">
          {sub.graceEndsAt
            ? `Payment failed; the ${billing.plan} plan ends on ${sub.graceEndsAt.slice(0, 10)} unless the card is updated (Invoices and payment method).`
            : 'Payment failed: update the card (Invoices and payment method).'}
        </Notice>
      )}
      {sub && (
        <p data-testid="billing-subscription">
          {`Subscription ${sub.status.replace('_', ' ')}${sub.interval ? `, billed ${sub.interval === 'month' ? 'monthly' : 'yearly'}` : ''}${sub.periodEnd ? `; this period ends ${sub.periodEnd.slice(0, 10)}` : ''}.`}
        </p>
      )}
      {billing.months.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label="Closed months">
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col">Plan</th>
                <th scope="col">Overage</th>
                <th scope="col">On an invoice</th>
              </tr>
            </thead>
            <tbody>
              {billing.months.map((m) => (
                <tr key={m.month}>
                  <th scope="row">{m.month.slice(0, 7)}</th>
                  <td>{m.plan}</td>
                  <td>{formatUsdToCents(m.overageUsd)}</td>
                  <td>{m.overageUsd === 0 ? '—' : m.reported ? 'yes' : 'being sent'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
