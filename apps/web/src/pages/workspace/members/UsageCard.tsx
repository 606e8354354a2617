import { Card } from '../../../components/Card.tsx';
import { formatNumberEn } from '../../../lib/format.ts';
import type { WorkspaceInfo } from '../types.ts';

/** One allowance as a bar: used of limit (null limit: unlimited), with an optional note under it. */
export function Allowance({
  label,
  used,
  limit,
  note,
}: {
  label: string;
  used: number | null;
  limit: number | null;
  note?: string;
}) {
  const full = limit !== null && used !== null && used >= limit;
  const share = limit && used !== null ? Math.min(100, Math.round((used / limit) * 100)) : 0;
  const text =
    used === null
      ? 'not shown'
      : limit === null
        ? `${formatNumberEn(used)} (unlimited)`
        : `${formatNumberEn(used)} of ${formatNumberEn(limit)}`;
  return (
    <div className="allowance">
      <div className="allowance-head">
        <span>{label}</span>
        <strong>{text}</strong>
      </div>
      {limit !== null && used !== null && (
        <div className={full ? 'meter meter-full' : 'meter'} aria-hidden="true">
          <span style={{ width: `${share}%` }} />
        </div>
      )}
      {note && <p className="muted small">{note}</p>}
    </div>
  );
}

/** What the workspace uses of its plan's allowances. */
export function UsageCard({ workspace }: { workspace: WorkspaceInfo }) {
  return (
    <Card title="Plan allowances">
      <div className="allowances">
        <Allowance
          label="Members"
          used={workspace.usage.members}
          limit={workspace.limits.members}
          note="Pending invitations count until they are accepted, withdrawn or expire."
        />
        <Allowance label="Sites" used={workspace.usage.sites} limit={workspace.limits.sites} />
      </div>
    </Card>
  );
}
