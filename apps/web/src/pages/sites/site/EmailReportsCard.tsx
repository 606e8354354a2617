import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { REPORTS_PER_SITE } from '@us/shared';
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
import { AddEmailReportForm } from './AddEmailReportForm.tsx';
import { reportStatus } from './reportStatus.ts';

/**
 * Addresses that get the site's figures by e-mail every week or month, once they confirmed; each can be
 * sent at once. A report added by a member who left is stopped until an owner takes it over.
 */
export function EmailReportsCard({ siteId }: { siteId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const reports = useQuery(trpc.reports.list.queryOptions({ id: siteId }));
  const refresh = () => queryClient.invalidateQueries(trpc.reports.list.queryFilter({ id: siteId }));
  const remove = useMutation(trpc.reports.remove.mutationOptions({ onSuccess: refresh }));
  const send = useMutation(trpc.reports.sendNow.mutationOptions());
  const takeOver = useMutation(trpc.reports.takeOver.mutationOptions({ onSuccess: refresh }));
  const isOwner = useIsOwner();
  const list = reports.data?.reports ?? [];
  return (
    <Card title="E-mail reports">
      <p className="card-intro">
        Visitors and the other headline figures beside the previous period, the top sources and pages and their biggest changes,
        for the last full week (sent on Mondays) or month (on the 1st), in the site's time zone. The first e-mail covers the first
        full period after an address is added; "Send now" sends the last one at once. A new address first gets one e-mail asking
        it to confirm, and nothing else until it does. Up to {REPORTS_PER_SITE} addresses; each e-mail has an unsubscribe link.
      </p>
      {reports.error && <Notice tone="error">{toProblem(reports.error).title}</Notice>}
      {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
      {send.error && <Notice tone="error">{toProblem(send.error).title}</Notice>}
      {takeOver.error && <Notice tone="error">{toProblem(takeOver.error).title}</Notice>}
      {send.data && (
        <Notice tone="info">
          Sent the report of {send.data.from} – {send.data.to} to{' '}
          {list.find((r) => r.id === send.variables?.reportId)?.address ?? 'its address'}.
        </Notice>
      )}
      {reports.data && list.length === 0 && <p className="site-none">No e-mail reports yet.</p>}
      {list.length > 0 && (
        <ActionsTable label="E-mail reports" columns={['Address', 'Frequency', 'Status', 'Last sent']}>
          {list.map((r) => {
            const status = reportStatus(r);
            return (
              <tr key={r.id}>
                <th scope="row" className="site-cell-main">
                  {r.address}
                </th>
                <td>{r.frequency === 'weekly' ? 'Weekly' : 'Monthly'}</td>
                <td>{status.text}</td>
                <td>{formatDateTime(r.lastSentAt)}</td>
                <td className="site-cell-actions">
                  <TakeOverButton
                    shown={r.creatorLeft && isOwner}
                    name={`Take over the ${r.frequency} report to ${r.address}`}
                    disabled={takeOver.isPending}
                    onClick={() => takeOver.mutate({ id: siteId, reportId: r.id })}
                  />
                  <IfWritable>
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      aria-label={`Send now: the ${r.frequency} report to ${r.address}`}
                      disabled={send.isPending || !status.sending}
                      onClick={() => send.mutate({ id: siteId, reportId: r.id })}
                    >
                      Send now
                    </button>{' '}
                  </IfWritable>
                  <ConfirmButton
                    label="Remove"
                    name={`Remove the ${r.frequency} report to ${r.address}`}
                    question="Stop this report?"
                    confirmLabel="Remove report"
                    busy={remove.isPending && remove.variables.reportId === r.id}
                    busyLabel="Removing…"
                    disabled={remove.isPending}
                    onConfirm={() => remove.mutate({ id: siteId, reportId: r.id })}
                  />
                </td>
              </tr>
            );
          })}
        </ActionsTable>
      )}
      <IfWritable>
        <AddEmailReportForm siteId={siteId} onAdded={refresh} />
      </IfWritable>
    </Card>
  );
}
