import { useQuery } from '@tanstack/react-query';
import { Card } from '../../components/Card.tsx';
import { Notice } from '../../components/Notice.tsx';
import { toProblem } from '../../problem.ts';
import { useTRPC } from '../../trpc.ts';
import { Allowance } from './members/UsageCard.tsx';
import { WorkspaceFrame } from './WorkspaceFrame.tsx';

const usd = (n: number) => `${n.toLocaleString('en')} USD`;
const count = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en'));

/** `/billing`: the plan, this month's usage against each allowance with its projection, and the plans. */
export function BillingPage() {
  const billing = useQuery(useTRPC().billing.get.queryOptions());
  const problem = billing.error ? toProblem(billing.error) : null;
  const b = billing.data;
  const projected = (p: number | null) => (p === null ? undefined : `Heading for ${p.toLocaleString('en')} by the month's end.`);
  return (
    <WorkspaceFrame title="Billing">
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!b && !problem && <p className="loading">Loading…</p>}
      {b && (
        <div className="stack">
          <Card title={`Plan: ${b.plan}`} aside={<span className="muted">{`${b.period.from} to ${b.period.to}`}</span>}>
            {!b.configured && (
              <Notice tone="info">
                No payment provider is set up on this server, so every workspace stays on Free. Allowances reset on the 1st of
                each month (UTC).
              </Notice>
            )}
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
                ? `Projected overage at the month's end: ${usd(b.overage.totalUsd)} (pageviews ${usd(b.overage.pageviewsUsd)}, server requests ${usd(b.overage.requestsUsd)}, proxy hostnames ${usd(b.overage.proxyHostnamesUsd)}).`
                : 'Free never bills: past an allowance the owners get a notice at 80 % and 100 %, and at 150 % of server requests their logging pauses until the month turns. Pageviews keep counting.'}
            </p>
          </Card>
          <Card title="Plans">
            <div className="table-wrap">
              <table className="table" aria-label="Plans">
                <thead>
                  <tr>
                    <th scope="col">Plan</th>
                    <th scope="col">Monthly / yearly</th>
                    <th scope="col">Human pageviews</th>
                    <th scope="col">Server requests</th>
                    <th scope="col">Sites</th>
                    <th scope="col">Members</th>
                    <th scope="col">Proxy hostnames</th>
                  </tr>
                </thead>
                <tbody>
                  {b.plans.map((p) => (
                    <tr key={p.plan} aria-current={p.plan === b.plan ? 'true' : undefined}>
                      <th scope="row">
                        {p.plan}
                        {p.plan === b.plan ? ' (yours)' : ''}
                      </th>
                      <td>{p.monthlyUsd === 0 ? 'free' : `${p.monthlyUsd} / ${p.yearlyUsd} USD`}</td>
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
              Every feature is on every plan. Overage on paid plans: 10 USD per started extra million pageviews, 1 USD per million
              server requests, 1 USD per extra proxy hostname, billed at the month's end; nothing is dropped.
            </p>
          </Card>
        </div>
      )}
    </WorkspaceFrame>
  );
}
