import type { RouterOutputs } from '@us/api';
import { Notice } from '../../../components/Notice.tsx';
import { formatNumberEn } from '../../../lib/format.ts';

type Billing = RouterOutputs['billing']['get'];
type Measure = Billing['usage']['sites'];

const past = (m: Measure) => m.allowance !== null && m.used > m.allowance;

/** What the workspace holds past its plan's allowances (after a cancellation, say): each with its allowance. */
export function heldOver(b: Billing): string[] {
  const over: string[] = [];
  const { sites, members, proxyHostnames } = b.usage;
  if (past(sites)) over.push(`${formatNumberEn(sites.used)} sites of its ${formatNumberEn(sites.allowance ?? 0)}`);
  if (past(members)) {
    over.push(`${formatNumberEn(members.used)} members and pending invitations of its ${formatNumberEn(members.allowance ?? 0)}`);
  }
  // Paid plans may hold more proxy hostnames than included (each extra is billed); Free may not.
  if (b.plan === 'Free' && past(proxyHostnames)) {
    over.push(
      `${formatNumberEn(proxyHostnames.used)} proxy-mode hostnames of its ${formatNumberEn(proxyHostnames.allowance ?? 0)}`,
    );
  }
  return over;
}

/** Says that nothing held past the allowances was deleted, and what is refused until the workspace fits. */
export function HeldOverNotice({ billing }: { billing: Billing }) {
  const over = heldOver(billing);
  if (!over.length) return null;
  return (
    <Notice tone="info">
      <span data-testid="billing-held-over">
        {`This workspace holds more than the ${billing.plan} plan allows: ${over.join('; ')}. Nothing was deleted and all of it keeps working; new sites, invitations and proxy-mode hostnames past the allowance are refused until the workspace fits again or the plan grows.`}
      </span>
    </Notice>
  );
}
