import { formatCount } from '../../../lib/format.ts';
import { ACTIONS, type Action } from './types.ts';

/** An action as a coloured word (the word carries the meaning; the colour only helps). */
export function ActionBadge({ action }: { action: Action }) {
  const label = ACTIONS.find((a) => a.value === action)?.label ?? action;
  return <span className={`badge action-${action}`}>{label}</span>;
}

/** Three cells: allowed, challenged, refused. */
export function ActionCounts({ counts }: { counts: Record<Action, number> }) {
  return (
    <>
      {ACTIONS.map((a) => (
        <td key={a.value} className="num">
          {formatCount(counts[a.value])}
        </td>
      ))}
    </>
  );
}

/** Three column heads matching ActionCounts. */
export function ActionHeads() {
  return (
    <>
      {ACTIONS.map((a) => (
        <th key={a.value} scope="col" className="num">
          {a.label}
        </th>
      ))}
    </>
  );
}

/**
 * Requests by reason and action, most first; with `client`, a column naming the client software too. The
 * other columns take only the room their content needs and the reason column all the rest, so a reason
 * stays on one line where it fits and a long one wraps over few; on a narrow screen the table scrolls sideways.
 */
export function ReasonsTable({
  label,
  rows,
}: {
  label: string;
  rows: { action: Action; reason: string; count: number; client?: string }[];
}) {
  const withClient = rows.some((r) => r.client !== undefined);
  return (
    <div className="site-table-wrap">
      <table className="site-table reasons-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Reason</th>
            <th scope="col" className="fit">
              Action
            </th>
            {withClient && (
              <th scope="col" className="fit">
                Client
              </th>
            )}
            <th scope="col" className="num">
              Requests
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            // Rows are one answer's groups, in its order; two may share action, reason and client.
            <tr key={`${i}|${r.action}|${r.reason}`}>
              <th scope="row" className="reason">
                {r.reason}
              </th>
              <td className="fit">
                <ActionBadge action={r.action} />
              </td>
              {withClient && <td className="fit">{r.client}</td>}
              <td className="num">{formatCount(r.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
