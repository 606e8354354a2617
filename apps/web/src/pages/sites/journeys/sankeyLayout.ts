import { sankey } from 'd3-sankey';
import type { JourneyLink, JourneyNode } from './data.ts';

export interface PlacedNode extends JourneyNode {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

export interface PlacedLink {
  source: PlacedNode;
  target: PlacedNode;
  sessions: number;
  /** Band width and its centre at each end. */
  width: number;
  y0: number;
  y1: number;
}

export interface SankeyPlan {
  nodes: PlacedNode[];
  links: PlacedLink[];
  /** The steps shown, left to right, with each column's left edge. */
  columns: { step: number; x: number }[];
}

const NODE_WIDTH = 14;

/**
 * Places the flow's steps in columns by their step number and sizes bands by sessions (d3-sankey does
 * the layout; drawing is React's). Links whose ends are not in the flow are left out; null when there
 * is nothing to draw.
 */
export function layoutSankey(nodes: JourneyNode[], links: JourneyLink[], width: number, height: number): SankeyPlan | null {
  if (nodes.length === 0) return null;
  const ids = new Set(nodes.map((n) => n.id));
  const kept = links.filter((l) => ids.has(l.source) && ids.has(l.target) && l.sessions > 0 && l.source !== l.target);
  const first = Math.min(...nodes.map((n) => n.step));
  const steps = [...new Set(nodes.map((n) => n.step))].sort((a, b) => a - b);
  const column = new Map(steps.map((s, i) => [s, i]));
  type N = JourneyNode & { column: number };
  type L = { source: string; target: string; value: number; sessions: number };
  const graph = sankey<N, L>()
    .nodeId((n) => n.id)
    .nodeAlign((n) => (n as unknown as N).column)
    .nodeWidth(NODE_WIDTH)
    .nodePadding(14)
    .nodeSort((a, b) => b.sessions - a.sessions)
    .extent([
      [1, 24],
      [width - 1, height - 4],
    ]);
  try {
    const out = graph({
      nodes: nodes.map((n) => ({ ...n, column: column.get(n.step) ?? n.step - first })),
      links: kept.map((l) => ({ source: l.source, target: l.target, value: l.sessions, sessions: l.sessions })),
    });
    const placed = out.nodes.map((n) => ({
      id: n.id,
      step: n.step,
      label: n.label,
      sessions: n.sessions,
      x0: n.x0 ?? 0,
      x1: n.x1 ?? 0,
      y0: n.y0 ?? 0,
      y1: Math.max((n.y0 ?? 0) + 2, n.y1 ?? 0),
    }));
    const byId = new Map(placed.map((n) => [n.id, n]));
    const placedLinks: PlacedLink[] = [];
    for (const l of out.links) {
      // After the layout, d3-sankey has replaced each end's id by its node.
      const s = byId.get((l.source as unknown as N).id);
      const t = byId.get((l.target as unknown as N).id);
      if (s && t)
        placedLinks.push({ source: s, target: t, sessions: l.sessions, width: l.width ?? 1, y0: l.y0 ?? 0, y1: l.y1 ?? 0 });
    }
    const columns = steps.map((step) => ({ step, x: placed.find((n) => n.step === step)?.x0 ?? 0 }));
    return { nodes: placed, links: placedLinks, columns };
  } catch {
    return null;
  }
}

/** A band between two columns: a cubic curve along its centre, drawn as a stroke of the band's width. */
export function bandPath(l: PlacedLink): string {
  const x0 = l.source.x1;
  const x1 = l.target.x0;
  const mid = (x0 + x1) / 2;
  return `M${x0},${l.y0}C${mid},${l.y0} ${mid},${l.y1} ${x1},${l.y1}`;
}

/** The words of a step position: "Step 1" from the start, or "Anchor", "1 step before", "2 steps after". */
export function stepName(step: number, anchored: boolean): string {
  if (!anchored) return `Step ${step + 1}`;
  if (step === 0) return 'Anchor';
  const n = Math.abs(step);
  return `${n} step${n === 1 ? '' : 's'} ${step < 0 ? 'before' : 'after'}`;
}
