import { formatCount } from '../dashboard/format.ts';
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
