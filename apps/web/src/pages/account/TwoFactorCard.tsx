import { type ReactNode, useState } from 'react';
import { Card } from '../../components/Card.tsx';
import type { Enrolment } from '../../trpc.ts';
import { TwoFactorConfirm } from './TwoFactorConfirm.tsx';
import { TwoFactorDisable } from './TwoFactorDisable.tsx';
import { TwoFactorEnroll } from './TwoFactorEnroll.tsx';

/** Two-factor sign-in: off → enrol with the password → scan and confirm a first code → on → disable. */
export function TwoFactorCard({ enabled }: { enabled: boolean }) {
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const status = enabled ? (
    <span className="badge badge-ok" id="two-factor-status">
      On
    </span>
  ) : (
    <span className="badge" id="two-factor-status">
      Off
    </span>
  );

  let body: ReactNode;
  if (enabled) {
    body = <TwoFactorDisable />;
  } else if (enrolment) {
    body = <TwoFactorConfirm enrolment={enrolment} onCancel={() => setEnrolment(null)} onConfirmed={() => setEnrolment(null)} />;
  } else {
    body = <TwoFactorEnroll onEnrolled={setEnrolment} />;
  }

  return (
    <Card title="Two-factor sign-in" aside={status}>
      {body}
    </Card>
  );
}
