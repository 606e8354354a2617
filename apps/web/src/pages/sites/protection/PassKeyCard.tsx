import { useMutation } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';

/**
 * The site's pass key (`bot.rotatePassKey`, POST /v1/sites/{id}/bot/pass-key): it signs the cookies of
 * visitors who passed the check, so whoever has seen it could let anyone in. Rotating it ends every pass.
 */
export function PassKeyCard({ siteId }: { siteId: string }) {
  const rotate = useMutation(useTRPC().bot.rotatePassKey.mutationOptions());
  return (
    <Card title="Pass key">
      <p className="card-intro">
        Visitors who passed the check carry a cookie signed with the site’s pass key. If the key may have leaked, replace it:
        every pass ends at once here and within a minute at your edges, and those visitors take the check again.
      </p>
      <ConfirmButton
        label="Replace pass key"
        question="End every visitor’s pass now?"
        confirmLabel="Replace key"
        busy={rotate.isPending}
        busyLabel="Replacing…"
        onConfirm={() => rotate.mutate({ id: siteId })}
      />
      {rotate.isSuccess && (
        <Notice>Replaced at {new Date(rotate.data.rotatedAt).toLocaleTimeString()}: earlier passes no longer work.</Notice>
      )}
      {rotate.isError && <Notice tone="error">{toProblem(rotate.error).title}</Notice>}
    </Card>
  );
}
