// The flow (a Sankey of steps) with k-anonymity: a step is named only where at least MIN sessions share
// it *and* the step next to it towards the centre, so every named node and every link between named
// nodes carries at least MIN sessions. Steps below that are relabelled `(other)` group by group, and
// nodes and links are then counted from the relabelled groups, so a node's figure is exactly the sum of
// its links towards the centre: no named group hides in a difference between two shown figures.
import { JOURNEY_LIMITS, JOURNEY_OTHER } from '@us/shared';
import { NONE, WIDTH } from './groups.ts';
import { PairIndex } from './pair-index.ts';

const MIN = JOURNEY_LIMITS.minSessions;

export interface FlowNode {
  id: string;
  step: number;
  label: string;
  sessions: number;
}
export interface FlowLink {
  source: string;
  target: string;
  sessions: number;
}
export interface Flow {
  nodes: FlowNode[];
  links: FlowLink[];
  /** Session-steps shown as (other). */
  folded: number;
}

/** Groups as the fold reads them: per group WIDTH label numbers (`slots`) and its sessions. */
export interface FlowGroups {
  names: readonly string[];
  count: number;
  slots: Int32Array;
  sessions: Int32Array;
}

const nodeId = (step: number, label: string) => `${step}:${label}`;

/**
 * The pairs a step names: at least MIN sessions, and among the step's JOURNEY_LIMITS.namedPerStep largest (ties by
 * their labels' text, so raw rows and stored days, which number labels apart, name the same), so a site with
 * thousands of pages gets a flow a person can read and an answer of bounded size.
 */
function largestPairs(totals: readonly number[], pairNames: readonly string[]): Set<number> {
  const eligible: number[] = [];
  totals.forEach((n, k) => {
    if (n >= MIN) eligible.push(k);
  });
  if (eligible.length <= JOURNEY_LIMITS.namedPerStep) return new Set(eligible);
  const text = (k: number) => pairNames[k] as string;
  eligible.sort((a, b) => (totals[b] as number) - (totals[a] as number) || (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
  return new Set(eligible.slice(0, JOURNEY_LIMITS.namedPerStep));
}

/**
 * Folds the groups around slot `centre` (step 0): the centre by its own label, each later slot by
 * (folded slot before, label), each earlier slot by (label, folded slot after). Nodes are numbered
 * `slot * L + label`, L being the count of names.
 */
export function foldFlow(groups: FlowGroups, centre: number): Flow {
  const { count, slots, sessions } = groups;
  const names = [...groups.names];
  let other = names.indexOf(JOURNEY_OTHER);
  if (other === -1) other = names.push(JOURNEY_OTHER) - 1;
  const L = names.length;
  const folded = new Int32Array(count * WIDTH).fill(NONE);
  const keyIndex = new Int32Array(count);
  let otherSteps = 0;

  const foldSlot = (at: number, by: number | null) => {
    // Each group's pair numbered once (first pass), then named by its pair's total (second pass).
    const index = new PairIndex();
    const totals: number[] = [];
    /** Per pair number: its label and the folded label beside it, as text (ties are broken by them). */
    const pairNames: string[] = [];
    for (let g = 0; g < count; g++) {
      const label = slots[g * WIDTH + at] as number;
      if (label === NONE) continue;
      const beside = by === null ? NONE : (folded[g * WIDTH + by] as number);
      const k = index.id(beside, label);
      if (pairNames[k] === undefined) pairNames[k] = `${names[label]}\n${beside === NONE ? '' : names[beside]}`;
      totals[k] = (totals[k] ?? 0) + (sessions[g] as number);
      keyIndex[g] = k;
    }
    const shown = largestPairs(totals, pairNames);
    for (let g = 0; g < count; g++) {
      const label = slots[g * WIDTH + at] as number;
      if (label === NONE) continue;
      const named = shown.has(keyIndex[g] as number);
      if (!named) otherSteps += sessions[g] as number;
      folded[g * WIDTH + at] = named ? label : other;
    }
  };

  foldSlot(centre, null);
  for (let at = centre + 1; at < WIDTH; at++) foldSlot(at, at - 1);
  for (let at = centre - 1; at >= 0; at--) foldSlot(at, at + 1);

  // Nodes by (slot, folded label), links by (slot, folded label, next folded label), as numbers.
  const nodeSessions = new Float64Array(WIDTH * L);
  const links = new PairIndex();
  const linkSessions: number[] = [];
  /** Per link number: its source node and the target's folded label. */
  const linkEnds: [number, number][] = [];
  for (let g = 0; g < count; g++) {
    const row = g * WIDTH;
    const s = sessions[g] as number;
    for (let at = 0; at < WIDTH; at++) {
      const label = folded[row + at] as number;
      if (label === NONE) continue;
      const node = at * L + label;
      nodeSessions[node] = (nodeSessions[node] as number) + s;
      const next = at + 1 < WIDTH ? (folded[row + at + 1] as number) : NONE;
      if (next === NONE) continue;
      const link = links.id(node, next);
      if (link === linkEnds.length) linkEnds.push([node, next]);
      linkSessions[link] = (linkSessions[link] ?? 0) + s;
    }
  }
  const nodeOf = (node: number): FlowNode => {
    const step = Math.floor(node / L) - centre;
    const label = names[node % L] as string;
    return { id: nodeId(step, label), step, label, sessions: nodeSessions[node] as number };
  };
  const nodes: FlowNode[] = [];
  nodeSessions.forEach((n, node) => {
    if (n > 0) nodes.push(nodeOf(node));
  });
  const byStepThenSize = (a: FlowNode, b: FlowNode) =>
    a.step - b.step || b.sessions - a.sessions || a.label.localeCompare(b.label);
  return {
    nodes: nodes.sort(byStepThenSize),
    links: linkEnds
      .map(([from, next], link) => {
        const to = (Math.floor(from / L) + 1) * L + next;
        return { source: nodeOf(from).id, target: nodeOf(to).id, sessions: linkSessions[link] as number };
      })
      .sort((a, b) => b.sessions - a.sessions || a.source.localeCompare(b.source) || a.target.localeCompare(b.target)),
    folded: otherSteps,
  };
}
