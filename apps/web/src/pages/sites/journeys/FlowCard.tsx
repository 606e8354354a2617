import { Card } from '../../../components/Card.tsx';
import type { Journeys } from './data.ts';
import { FlowTable } from './FlowTable.tsx';
import { SankeyChart } from './SankeyChart.tsx';

/** The session flow: the Sankey, its figures as a table, and what to do when it is empty. */
export function FlowCard({ journeys, onAnchor }: { journeys: Journeys; onAnchor: (label: string | null) => void }) {
  const { nodes, links } = journeys.flow;
  const anchored = journeys.anchor !== null;
  const named = nodes.some((n) => n.label !== '(other)');
  return (
    <Card
      title="Session flow"
      aside={
        anchored ? (
          <button type="button" className="button button-secondary button-small" onClick={() => onAnchor(null)}>
            Show from the first step
          </button>
        ) : undefined
      }
    >
      <p className="card-intro">
        {anchored ? (
          <>
            Sessions that reached <strong data-testid="anchor">{journeys.anchor}</strong>: two steps before it and two after.
          </>
        ) : (
          <>The first five steps of each session.</>
        )}{' '}
        Choose a step to centre the flow on it.
      </p>
      {nodes.length === 0 || !named ? (
        <p className="site-none" data-testid="flow-empty">
          Not enough data yet: fewer than 5 sessions {anchored ? 'reach this step' : 'took the same steps'}, and smaller groups
          are never named.{' '}
          {anchored
            ? 'Show the flow from the first step, or choose a longer period.'
            : 'Choose a longer period or a coarser zoom (section), or wait for more visits.'}
        </p>
      ) : (
        <>
          <SankeyChart nodes={nodes} links={links} anchored={anchored} onAnchor={onAnchor} />
          <FlowTable nodes={nodes} links={links} anchored={anchored} />
        </>
      )}
    </Card>
  );
}
