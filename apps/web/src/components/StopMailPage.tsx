import type { ReactNode } from 'react';
import { toProblem } from '../problem.ts';
import { GuestPage } from './GuestPage.tsx';
import { Notice } from './Notice.tsx';

/** What the page needs of its unsubscribe call (a react-query mutation). */
interface StopCall<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  mutate: (input: { token: string }) => void;
}

/**
 * The page an e-mail's unsubscribe link opens (reports, alerts). It asks for one press rather than acting
 * on opening, so a mail scanner that follows links does not unsubscribe anyone.
 */
export function StopMailPage<T>(props: {
  title: string;
  token: string | null;
  call: StopCall<T>;
  missing: string;
  stopLabel: string;
  done: (answer: T) => ReactNode;
}) {
  const { token, call } = props;
  return (
    <GuestPage title={props.title}>
      {!token && <Notice tone="error">{props.missing}</Notice>}
      {call.error ? <Notice tone="error">{toProblem(call.error).title}</Notice> : null}
      {call.data && <Notice tone="info">{props.done(call.data)}</Notice>}
      {token && !call.data && (
        <button type="button" className="button button-primary" disabled={call.isPending} onClick={() => call.mutate({ token })}>
          {call.isPending ? 'Stopping…' : props.stopLabel}
        </button>
      )}
    </GuestPage>
  );
}
