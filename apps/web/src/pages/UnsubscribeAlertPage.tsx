import { useMutation } from '@tanstack/react-query';
import { StopMailPage } from '../components/StopMailPage.tsx';
import { useQueryParam } from '../router.tsx';
import { useTRPC } from '../trpc.ts';

/** The alert e-mail's unsubscribe link (one press: components/StopMailPage.tsx). */
export function UnsubscribeAlertPage() {
  return (
    <StopMailPage
      title="Stop an alert"
      token={useQueryParam('token')}
      call={useMutation(useTRPC().alerts.unsubscribe.mutationOptions())}
      missing="This page needs the link from an alert e-mail: open the link from the e-mail."
      stopLabel="Stop sending this alert"
      done={(d) => `This alert of ${d.siteName} is no longer sent to ${d.address}.`}
    />
  );
}
