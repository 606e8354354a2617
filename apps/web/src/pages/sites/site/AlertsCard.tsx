import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ALERT_LIMITS, type Alert } from '@us/shared';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { ActionsTable } from '../parts/ActionsTable.tsx';
import { TakeOverButton } from '../parts/TakeOverButton.tsx';
import { useIsOwner } from '../parts/useIsOwner.ts';
import { AddAlertForm } from './AddAlertForm.tsx';

/** What a rule watches, in words. */
export function ruleText(a: Alert): string {
  const per = a.window === 'hour' ? 'hour' : 'day';
  if (a.kind === 'first_pageview') return 'First pageview';
  if (a.kind === 'traffic_spike') return `Visitors up ${a.thresholdPercent}% or more (per ${per})`;
  if (a.kind === 'traffic_drop') return `Visitors down ${a.thresholdPercent}% or more (per ${per})`;
  return `"${a.goal}" conversions down ${a.thresholdPercent}% or more (per ${per})`;
}

/** Who a rule tells: its addresses (and whether each confirmed) and its webhook. */
function tellsText(a: Alert): string {
  const addresses = a.recipients.map((r) => (r.confirmation === 'confirmed' ? r.address : `${r.address} (not confirmed yet)`));
  return [...addresses, ...(a.webhookUrl ? [`webhook ${new URL(a.webhookUrl).host}`] : [])].join(', ');
}

/**
 * Rules that tell by e-mail (and optionally a signed webhook) when the site's traffic spikes or drops
 * against the same hour or weekday of the 4 weeks before, when a goal's conversions fall, or when the
 * first pageview arrives (docs/product/alerts.md).
 */
export function AlertsCard({ siteId }: { siteId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const alerts = useQuery(trpc.alerts.list.queryOptions({ id: siteId }));
  const refresh = () => queryClient.invalidateQueries(trpc.alerts.list.queryFilter({ id: siteId }));
  const remove = useMutation(trpc.alerts.delete.mutationOptions({ onSuccess: refresh }));
  const toggle = useMutation(trpc.alerts.update.mutationOptions({ onSuccess: refresh }));
  const takeOver = useMutation(trpc.alerts.takeOver.mutationOptions({ onSuccess: refresh }));
  const isOwner = useIsOwner();
  const [secret, setSecret] = useState<string | null>(null);
  const list = alerts.data?.alerts ?? [];
  return (
    <Card title="Alerts">
      <p className="card-intro">
        Be told when visitors spike or drop, or a goal's conversions fall, against the average of the same hour or weekday over
        the previous 4 weeks (once that average is {ALERT_LIMITS.minBaseline} or more), or when the first pageview arrives. Each
        rule tells at most once per hour or day. Up to {ALERT_LIMITS.perSite} rules; each e-mail has an unsubscribe link.
      </p>
      {alerts.error && <Notice tone="error">{toProblem(alerts.error).title}</Notice>}
      {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
      {toggle.error && <Notice tone="error">{toProblem(toggle.error).title}</Notice>}
      {takeOver.error && <Notice tone="error">{toProblem(takeOver.error).title}</Notice>}
      {secret && (
        <Notice tone="info">
          The webhook's signing secret, shown this once: <code>{secret}</code>
        </Notice>
      )}
      {alerts.data && list.length === 0 && <p className="site-none">No alerts yet.</p>}
      {list.length > 0 && (
        <ActionsTable label="Alerts" columns={['Rule', 'Tells', 'Status', 'Last fired']}>
          {list.map((a) => (
            <tr key={a.id}>
              <th scope="row" className="site-cell-main">
                {ruleText(a)}
              </th>
              <td>{tellsText(a)}</td>
              <td>{a.creatorLeft ? 'Stopped: added by a member who left' : a.enabled ? 'On' : 'Paused'}</td>
              <td>{formatDateTime(a.lastFiredAt)}</td>
              <td className="site-cell-actions">
                <TakeOverButton
                  shown={a.creatorLeft && isOwner}
                  name={`Take over: ${ruleText(a)}`}
                  disabled={takeOver.isPending}
                  onClick={() => takeOver.mutate({ id: siteId, alert: a.id })}
                />
                <IfWritable>
                  <button
                    type="button"
                    className="button button-secondary button-small"
                    aria-label={`${a.enabled ? 'Pause' : 'Resume'}: ${ruleText(a)}`}
                    disabled={toggle.isPending}
                    onClick={() => toggle.mutate({ id: siteId, alert: a.id, enabled: !a.enabled })}
                  >
                    {a.enabled ? 'Pause' : 'Resume'}
                  </button>{' '}
                </IfWritable>
                <ConfirmButton
                  label="Remove"
                  name={`Remove the alert: ${ruleText(a)}`}
                  question="Remove this alert?"
                  confirmLabel="Remove alert"
                  busy={remove.isPending && remove.variables.alert === a.id}
                  busyLabel="Removing…"
                  disabled={remove.isPending}
                  onConfirm={() => remove.mutate({ id: siteId, alert: a.id })}
                />
              </td>
            </tr>
          ))}
        </ActionsTable>
      )}
      <IfWritable>
        <AddAlertForm
          siteId={siteId}
          onAdded={(s) => {
            setSecret(s);
            void refresh();
          }}
        />
      </IfWritable>
    </Card>
  );
}
