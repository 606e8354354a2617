import { useMutation } from '@tanstack/react-query';
import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { toProblem } from '../problem.ts';
import { useQueryParam } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

/** The alert e-mail's unsubscribe link: one press (a mail scanner that follows links unsubscribes no one). */
export function UnsubscribeAlertPage() {
  const token = useQueryParam('token');
  const unsubscribe = useMutation(useTRPC().alerts.unsubscribe.mutationOptions());
  const done = unsubscribe.data;
  return (
    <GuestPage title="Stop an alert">
      {!token && <Notice tone="error">This page needs the link from an alert e-mail: open the link from the e-mail.</Notice>}
      {unsubscribe.error && <Notice tone="error">{toProblem(unsubscribe.error).title}</Notice>}
      {done && (
        <Notice tone="info">
          This alert of {done.siteName} is no longer sent to {done.address}.
        </Notice>
      )}
      {token && !done && (
        <button
          type="button"
          className="button button-primary"
          disabled={unsubscribe.isPending}
          onClick={() => unsubscribe.mutate({ token })}
        >
          {unsubscribe.isPending ? 'Stopping…' : 'Stop sending this alert'}
        </button>
      )}
    </GuestPage>
  );
}
