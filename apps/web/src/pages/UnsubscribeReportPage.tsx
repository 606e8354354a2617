import { useMutation } from '@tanstack/react-query';
import { StopMailPage } from '../components/StopMailPage.tsx';
import { useQueryParam } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

/** The report e-mail's unsubscribe link (one press: components/StopMailPage.tsx). */
export function UnsubscribeReportPage() {
  return (
    <StopMailPage
      title="Stop an e-mail report"
      token={useQueryParam('token')}
      call={useMutation(useTRPC().reports.unsubscribe.mutationOptions())}
      missing="This page needs the link from a report e-mail: open the link from the e-mail."
      stopLabel="Stop sending this report"
      done={(d) =>
        `The ${d.frequency} report of ${d.siteName} is no longer sent to ${d.address}, nor any other report or invitation of its workspace.`
      }
    />
  );
}
