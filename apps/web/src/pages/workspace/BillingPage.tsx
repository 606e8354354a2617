import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Card } from '../../components/Card.tsx';
import { Notice } from '../../components/Notice.tsx';
import { useMe } from '../../data/useMe.ts';
import { formatNumberEn, formatUsdToCents } from '../../lib/format.ts';
import { toProblem } from '../../problem.ts';
import { useTRPC } from '../../trpc.ts';
import { HeldOverNotice } from './billing/HeldOverNotice.tsx';
import { InvoicesCard } from './billing/InvoicesCard.tsx';
import { PlansCard } from './billing/PlansCard.tsx';
import { Allowance } from './members/UsageCard.tsx';
import { WorkspaceFrame } from './WorkspaceFrame.tsx';

/**
 * `/billing`: the plan, this month's usage against each allowance with its projection, the subscription
 * and closed months (invoices through the provider's portal), and the plans to change to.
 */
export function BillingPage() {
  const me = useMe();
  // Back from the payment page: the plan changes when the provider confirms, so look again for a minute.
  const [returned] = useState(() => new URLSearchParams(window.location.search).get('checkout'));
  const [since] = useState(() => Date.now());
  const billing = useQuery({
    ...useTRPC().billing.get.queryOptions(),
    refetchInterval: (q) => (returned === 'done' && q.state.data?.plan === 'Free' && Date.now() - since < 60_000 ? 2000 : false),
  });
  const canChange = me.data?.scopes.includes('billing:write') ?? false;
  const problem = billing.error ? toProblem(billing.error) : null;
  const b = billing.data;
  const projected = (p: number | null) => (p === null ? undefined : `Heading for ${formatNumberEn(p)} by the month's end.`);
  return (
    <WorkspaceFrame title="Billing">
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!b && !problem && <p className="loading">Loading…</p>}
      {b && (
        <div className="stack">
          {returned === 'done' && (
            <Notice tone={b.plan === 'Free' ? 'info' : 'success'}>
              {b.plan === 'Free'
                ? 'Payment sent: the plan changes as soon as the payment provider confirms it (usually within seconds).'
                : `Thank you: the workspace is on ${b.plan}.`}
            </Notice>
          )}
          {returned === 'cancelled' && (
            <Notice tone="info">Checkout cancelled: nothing was charged and the plan is unchanged.</Notice>
          )}
          <Card title={`Plan: ${b.plan}`} aside={<span className="muted">{`${b.period.from} to ${b.period.to}`}</span>}>
            {!b.configured && (
              <Notice tone="info">
                No payment provider is set up on this server, so every workspace stays on Free. Allowances reset on the 1st of
                each month (UTC).
              </Notice>
            )}
            <HeldOverNotice billing={b} />
            <div className="allowances" data-testid="billing-usage">
              <Allowance
                label="Human pageviews this month"
                used={b.usage.humanPageviews.used}
                limit={b.usage.humanPageviews.allowance}
                note={projected(b.usage.humanPageviews.projected)}
              />
              <Allowance
                label="Server requests this month"
                used={b.usage.serverRequests.used}
                limit={b.usage.serverRequests.allowance}
                note={projected(b.usage.serverRequests.projected)}
              />
              <Allowance label="Sites" used={b.usage.sites.used} limit={b.usage.sites.allowance} />
              <Allowance
                label="Members"
                used={b.usage.members.used}
                limit={b.usage.members.allowance}
                note="Pending invitations count until they are accepted, withdrawn or expire."
              />
              <Allowance
                label="Proxy-mode hostnames"
                used={b.usage.proxyHostnames.used}
                limit={b.usage.proxyHostnames.allowance}
              />
            </div>
            <p data-testid="billing-overage">
              {b.overage.billed
                ? `Projected overage at the month's end: ${formatUsdToCents(b.overage.totalUsd)} (pageviews ${formatUsdToCents(b.overage.pageviewsUsd)}, server requests ${formatUsdToCents(b.overage.requestsUsd)}, proxy hostnames ${formatUsdToCents(b.overage.proxyHostnamesUsd)})${b.plan === 'Free' ? ', for the part of the month on a paid plan' : ''}.`
                : 'Free never bills: past an allowance the owners get a notice at 80 % and 100 %, and at 150 % of server requests their logging pauses until the month turns. Pageviews keep counting.'}
            </p>
          </Card>
          <InvoicesCard billing={b} canChange={canChange} />
          <PlansCard billing={b} canChange={canChange} />
        </div>
      )}
    </WorkspaceFrame>
  );
}
