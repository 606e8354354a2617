import { useMutation } from '@tanstack/react-query';
import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { toProblem } from '../problem.ts';
import { useQueryParam } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

/**
 * The confirmation e-mail's link, for reports and alerts alike (one consent per workspace and address):
 * the recipient says yes (they are sent) or no (they are removed and the workspace e-mails the address no more). It asks for a press rather than acting on
 * opening, so a mail scanner that follows links answers nothing.
 */
export function ConfirmReportPage() {
  const token = useQueryParam('token');
  const answer = useMutation(useTRPC().reports.confirm.mutationOptions());
  const done = answer.data;
  const sites = done?.sites.join(', ');
  return (
    <GuestPage title="Reports and alerts by e-mail">
      {!token && (
        <Notice tone="error">This page needs the link from the confirmation e-mail: open the link from the e-mail.</Notice>
      )}
      {answer.error && <Notice tone="error">{toProblem(answer.error).title}</Notice>}
      {done?.answer === 'yes' && (
        <Notice tone="info">
          Confirmed: {done.address} gets the reports and alerts asked for {sites}. Each e-mail has an unsubscribe link.
        </Notice>
      )}
      {done?.answer === 'no' && (
        <Notice tone="info">
          Done: no report, alert or invitation of the workspace that runs {sites} will be sent to {done.address}.
        </Notice>
      )}
      {token && !done && (
        <>
          <p>
            Someone asked to send a site's visitor reports or traffic alerts to this address. Nothing is sent unless you confirm.
          </p>
          <p className="form-actions">
            <button
              type="button"
              className="button button-primary"
              disabled={answer.isPending}
              onClick={() => answer.mutate({ token, answer: 'yes' })}
            >
              Yes, send me these e-mails
            </button>{' '}
            <button
              type="button"
              className="button button-secondary"
              disabled={answer.isPending}
              onClick={() => answer.mutate({ token, answer: 'no' })}
            >
              No, never e-mail me from this workspace
            </button>
          </p>
        </>
      )}
    </GuestPage>
  );
}
