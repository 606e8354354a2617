import type { MouseEvent } from 'react';
import { useElementWidth } from '../../../components/charts/useElementWidth.ts';
import { formatCount } from '../../../lib/format.ts';
import { useSearch } from '../../../router.tsx';
import { anchorHref } from './choices.ts';
import type { JourneyLink, JourneyNode } from './data.ts';
import { bandPath, layoutSankey, type PlacedNode, stepName } from './sankeyLayout.ts';

const OTHER = '(other)';
const LABEL_MAX = 28;

const short = (label: string) => (label.length > LABEL_MAX ? `${label.slice(0, LABEL_MAX - 1)}…` : label);

/**
 * The session flow as a Sankey: a column per step, a bar per page, section or element sized by its
 * sessions, a band per move. Every named step is a link that makes it the anchor (keyboard too).
 */
export function SankeyChart({
  nodes,
  links,
  anchored,
  onAnchor,
}: {
  nodes: JourneyNode[];
  links: JourneyLink[];
  anchored: boolean;
  onAnchor: (label: string) => void;
}) {
  const [wrap, width] = useElementWidth<HTMLDivElement>(900);
  const search = useSearch();
  const counts = new Map<number, number>();
  for (const n of nodes) counts.set(n.step, (counts.get(n.step) ?? 0) + 1);
  const perColumn = Math.max(1, ...counts.values());
  const height = Math.max(260, Math.min(900, perColumn * 44 + 40));
  const plan = layoutSankey(nodes, links, width, height);
  if (!plan) return <div ref={wrap} />;
  const last = plan.columns[plan.columns.length - 1]?.step;
  const follow = (e: MouseEvent<Element>, label: string) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    onAnchor(label);
  };
  const labelOf = (n: PlacedNode) => {
    const right = n.step !== last;
    return (
      <text
        className="sankey-label"
        x={right ? n.x1 + 6 : n.x0 - 6}
        y={(n.y0 + n.y1) / 2}
        dy="0.32em"
        textAnchor={right ? 'start' : 'end'}
      >
        {short(n.label)} <tspan className="sankey-count">{formatCount(n.sessions)}</tspan>
      </text>
    );
  };

  return (
    <figure className="sankey" ref={wrap} aria-label="Session flow">
      <svg className="sankey-svg" width={width} height={height} viewBox={`0 0 ${width} ${height}`} data-testid="sankey">
        <title>Session flow: a column per step, a bar per step’s sessions; choose a named step to centre the flow on it</title>
        <g className="sankey-columns">
          {plan.columns.map((c) => (
            <text
              key={c.step}
              x={c.step === last ? Math.min(c.x + 14, width - 2) : c.x}
              y={14}
              textAnchor={c.step === last ? 'end' : 'start'}
            >
              {stepName(c.step, anchored)}
            </text>
          ))}
        </g>
        <g className="sankey-links">
          {plan.links.map((l) => (
            <path
              key={`${l.source.id}>${l.target.id}`}
              className="sankey-link"
              d={bandPath(l)}
              strokeWidth={Math.max(1, l.width)}
            >
              <title>{`${l.source.label} → ${l.target.label}: ${formatCount(l.sessions)} sessions`}</title>
            </path>
          ))}
        </g>
        <g className="sankey-nodes">
          {plan.nodes.map((n) => {
            const isAnchor = anchored && n.step === 0;
            const cls = `sankey-node${n.label === OTHER ? ' sankey-other' : ''}${isAnchor ? ' sankey-anchor' : ''}`;
            const body = (
              <>
                <rect x={n.x0} y={n.y0} width={n.x1 - n.x0} height={n.y1 - n.y0} />
                {labelOf(n)}
                <title>{`${stepName(n.step, anchored)}: ${n.label}, ${formatCount(n.sessions)} sessions`}</title>
              </>
            );
            if (n.label === OTHER || isAnchor) {
              return (
                <g key={n.id} className={cls} data-node={n.id}>
                  {body}
                </g>
              );
            }
            return (
              <a
                key={n.id}
                className={cls}
                data-node={n.id}
                href={anchorHref(search, n.label)}
                onClick={(e) => follow(e, n.label)}
                aria-label={`${stepName(n.step, anchored)}: ${n.label}, ${formatCount(n.sessions)} sessions. Centre the flow on it`}
              >
                {body}
              </a>
            );
          })}
        </g>
      </svg>
    </figure>
  );
}
