import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatNumberEn } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';

type Billing = RouterOutputs['billing']['get'];
type Interval = 'month' | 'year';

const count = (n: number | null) => (n === null ? 'unlimited' : formatNumberEn(n));
const LIVE = new Set(['active', 'trialing', 'past_due']);

/** Goes to a payment provider page (checkout or portal): a full navigation, as the provider expects. */
export const openProviderPage = (url: string) => window.location.assign(url);

/**
 * The plans with their prices and allowances, and what the caller may do with them: a first paid plan
 * through checkout (monthly or yearly), another plan of a paying workspace at once, or back to Free.
 */
export function PlansCard({ billing, canChange }: { billing: Billing; canChange: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [interval, setInterval] = useState<Interval>(billing.subscription?.interval ?? 'month');
  const paying = billing.subscription !== null && LIVE.has(billing.subscription.status);
  const checkout = useMutation(trpc.billing.checkout.mutationOptions({ onSuccess: (r) => openProviderPage(r.url) }));
  const change = useMutation(
    trpc.billing.plan.mutationOptions({ onSuccess: (b) => queryClient.setQueryData(trpc.billing.get.queryKey(), b) }),
  );
  const failed = checkout.error ?? change.error;
  const busy = checkout.isPending || change.isPending;
  const actions = billing.configured && canChange;

  function action(plan: Billing['plans'][number]['plan']) {
    const current = plan === billing.plan && (plan === 'Free' || billing.subscription?.interval === interval);
    if (current) return null;
    if (plan === 'Free') {
      if (!paying) return null;
      return (
        <ConfirmButton
          label="Back to Free"
          name="Back to Free"
          question="End the subscription now (unused time is credited)?"
          confirmLabel="End it"
          busy={change.isPending}
          disabled={busy}
          onConfirm={() => change.mutate({ plan: 'Free' })}
        />
      );
    }
    // Short text in the table, the whole action for assistive technology.
    return (
      <button
        type="button"
        aria-label={`${paying ? 'Switch to' : 'Choose'} ${plan}`}
        className="button button-small"
        disabled={busy}
        onClick={() => (paying ? change.mutate({ plan, interval }) : checkout.mutate({ plan, interval }))}
      >
        {paying ? 'Switch' : 'Choose'}
      </button>
    );
  }

  return (
    <Card
      title="Plans"
      aside={
        actions ? (
          <fieldset className="interval-choice" aria-label="Billing interval">
            {(['month', 'year'] as const).map((i) => (
              <label key={i} className="check">
                <input type="radio" name="interval" value={i} checked={interval === i} onChange={() => setInterval(i)} />
                <span>{i === 'month' ? 'Monthly' : 'Yearly'}</span>
              </label>
            ))}
          </fieldset>
        ) : undefined
      }
    >
      {failed && <Notice tone="error">{toProblem(failed).title}</Notice>}
      {checkout.isPending && <p className="loading">Opening the payment page…</p>}
      {billing.configured && !canChange && (
        <Notice tone="info">Only an owner of the workspace can change its plan or see its invoices.</Notice>
      )}
      <div className="table-wrap">
        <table className="table" aria-label="Plans">
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">USD month / year</th>
              <th scope="col">Pageviews</th>
              <th scope="col">Server requests</th>
              <th scope="col">Sites</th>
              <th scope="col">Members</th>
              <th scope="col">Proxy hostnames</th>
            </tr>
          </thead>
          <tbody>
            {billing.plans.map((p) => (
              <tr key={p.plan} aria-current={p.plan === billing.plan ? 'true' : undefined}>
                <th scope="row">
                  {p.plan}
                  {p.plan === billing.plan ? ' (yours)' : ''}
                  {actions && <div className="plan-action">{action(p.plan)}</div>}
                </th>
                <td>{p.monthlyUsd === 0 ? 'free' : `${p.monthlyUsd} / ${p.yearlyUsd}`}</td>
                <td>{count(p.humanPageviews)}</td>
                <td>{count(p.serverRequests)}</td>
                <td>{count(p.sites)}</td>
                <td>{count(p.members)}</td>
                <td>{count(p.proxyHostnames)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted">
        Every feature is on every plan. Overage on paid plans, in proportion: 10 USD per million pageviews (a cent per 1,000), 1
        USD per million server requests, 1 USD per extra proxy hostname a month, billed at the month's end for the part of it on
        each plan, rounded up to the cent; nothing is dropped.
        {actions &&
          (paying
            ? ' A change applies at once: an upgrade is invoiced now, prorated; a smaller plan is credited on the next invoice and needs the workspace to fit it first.'
            : ' Choosing a plan opens the payment page; the plan changes once the payment goes through.')}
      </p>
    </Card>
  );
}
