import { formatCount } from '../../../lib/format.ts';
import type { JourneyLink, JourneyNode } from './data.ts';
import { stepName } from './sankeyLayout.ts';

/** The flow's moves as a table for screen readers (the drawing's steps are links, its bands are not). */
export function FlowTable({ nodes, links, anchored }: { nodes: JourneyNode[]; links: JourneyLink[]; anchored: boolean }) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const name = (id: string) => {
    const n = byId.get(id);
    return n ? `${n.label} (${stepName(n.step, anchored)})` : id;
  };
  return (
    <table className="site-visually-hidden" aria-label="Session flow, figures">
      <thead>
        <tr>
          <th scope="col">From</th>
          <th scope="col">To</th>
          <th scope="col">Sessions</th>
        </tr>
      </thead>
      <tbody>
        {links.map((l) => (
          <tr key={`${l.source}>${l.target}`}>
            <th scope="row">{name(l.source)}</th>
            <td>{name(l.target)}</td>
            <td>{formatCount(l.sessions)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
