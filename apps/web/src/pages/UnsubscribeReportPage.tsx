import { useMutation } from '@tanstack/react-query';
import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { toProblem } from '../problem.ts';
import { useQueryParam } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

/**
 * The report e-mail's unsubscribe link. It asks for one press rather than acting on opening, so a mail
 * scanner that follows links does not unsubscribe anyone.
 */
export function UnsubscribeReportPage() {
  const token = useQueryParam('token');
  const unsubscribe = useMutation(useTRPC().reports.unsubscribe.mutationOptions());
  const done = unsubscribe.data;
  return (
    <GuestPage title="Stop an e-mail report">
      {!token && <Notice tone="error">This page needs the link from a report e-mail: open the link from the e-mail.</Notice>}
      {unsubscribe.error && <Notice tone="error">{toProblem(unsubscribe.error).title}</Notice>}
      {done && (
        <Notice tone="info">
          The {done.frequency} report of {done.siteName} is no longer sent to {done.address}, nor any other report or invitation
          of its workspace.
        </Notice>
      )}
      {token && !done && (
        <button
          type="button"
          className="button button-primary"
          disabled={unsubscribe.isPending}
          onClick={() => unsubscribe.mutate({ token })}
        >
          {unsubscribe.isPending ? 'Stopping…' : 'Stop sending this report'}
        </button>
      )}
    </GuestPage>
  );
}
