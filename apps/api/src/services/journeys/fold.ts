// The flow (a Sankey of steps) with k-anonymity: a step is named only where at least MIN sessions share
// it *and* the step next to it towards the centre, so every named node and every link between named
// nodes carries at least MIN sessions. Steps below that are relabelled `(other)` session by session, and
// nodes and links are then counted from the relabelled sessions, so a node's figure is exactly the sum of
// its links towards the centre: no named group hides in a difference between two shown figures.
import { JOURNEY_LIMITS, JOURNEY_OTHER } from '@us/shared';

const MIN = JOURNEY_LIMITS.minSessions;

/** Sessions sharing one sequence of steps; `labels[j]` is at step `first + j`. */
export interface Sequence {
  labels: readonly string[];
  first: number;
  sessions: number;
}

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

const nodeId = (step: number, label: string) => `${step}:${label}`;

/**
 * Folds the sequences around step `centre` (0 from the first step; 0 at the anchor): the centre step
 * by its own label, each later step by (folded step before, label), each earlier step by (label,
 * folded step after). Labels are counted as small numbers (a month of a large site has ~10^5
 * sequences): a pair is the number `neighbour * L + label`, L being the count of distinct labels.
 */
export function foldFlow(sequences: readonly Sequence[], centre = 0): Flow {
  const seqs = sequences.filter((s) => s.labels.length > 0 && s.sessions > 0);
  const names: string[] = [];
  const idOf = new Map<string, number>();
  const intern = (label: string) => {
    let id = idOf.get(label);
    if (id === undefined) {
      id = names.length;
      names.push(label);
      idOf.set(label, id);
    }
    return id;
  };
  const other = intern(JOURNEY_OTHER);
  let min = centre;
  let max = centre;
  for (const s of seqs) {
    min = Math.min(min, s.first);
    max = Math.max(max, s.first + s.labels.length - 1);
  }
  const width = max - min + 1;
  // Per sequence i and step (from `min`), at i * width + step: its label's number, and its folded
  // label's (-1: no step). Two flat arrays rather than two small ones per sequence (~10^6 of them).
  const raw = new Int32Array(seqs.length * width).fill(-1);
  const folded = new Int32Array(seqs.length * width).fill(-1);
  seqs.forEach((s, i) => {
    s.labels.forEach((label, j) => {
      raw[i * width + s.first + j - min] = intern(label);
    });
  });
  const L = names.length;
  let otherSteps = 0;

  const foldStep = (step: number, neighbour: number | null) => {
    const at = step - min;
    const by = neighbour === null ? -1 : neighbour - min;
    const keyOf = (i: number) => {
      const label = raw[i * width + at] as number;
      return by < 0 ? label : (folded[i * width + by] as number) * L + label;
    };
    const counts = new Map<number, number>();
    seqs.forEach((s, i) => {
      if (raw[i * width + at] === -1) return;
      const key = keyOf(i);
      counts.set(key, (counts.get(key) ?? 0) + s.sessions);
    });
    seqs.forEach((s, i) => {
      const label = raw[i * width + at] as number;
      if (label === -1) return;
      const named = (counts.get(keyOf(i)) ?? 0) >= MIN;
      if (!named) otherSteps += s.sessions;
      folded[i * width + at] = named ? label : other;
    });
  };

  foldStep(centre, null);
  for (let step = centre + 1; step <= max; step++) foldStep(step, step - 1);
  for (let step = centre - 1; step >= min; step--) foldStep(step, step + 1);

  // Nodes by (step, folded label), links by (step, folded label, next folded label), as numbers.
  const nodeSessions = new Map<number, number>();
  const linkSessions = new Map<number, number>();
  seqs.forEach((s, i) => {
    const row = i * width;
    for (let at = s.first - min; at < s.first - min + s.labels.length; at++) {
      const node = at * L + (folded[row + at] as number);
      nodeSessions.set(node, (nodeSessions.get(node) ?? 0) + s.sessions);
      const next = at + 1 < width ? (folded[row + at + 1] as number) : -1;
      if (next !== -1) linkSessions.set(node * L + next, (linkSessions.get(node * L + next) ?? 0) + s.sessions);
    }
  });
  const nodeOf = (node: number): FlowNode => {
    const step = Math.floor(node / L) + min;
    const label = names[node % L] as string;
    return { id: nodeId(step, label), step, label, sessions: nodeSessions.get(node) ?? 0 };
  };
  const byStepThenSize = (a: FlowNode, b: FlowNode) =>
    a.step - b.step || b.sessions - a.sessions || a.label.localeCompare(b.label);
  return {
    nodes: [...nodeSessions.keys()].map(nodeOf).sort(byStepThenSize),
    links: [...linkSessions.entries()]
      .map(([key, sessions]) => {
        const from = Math.floor(key / L);
        const to = (Math.floor(from / L) + 1) * L + (key % L);
        return { source: nodeOf(from).id, target: nodeOf(to).id, sessions };
      })
      .sort((a, b) => b.sessions - a.sessions || a.source.localeCompare(b.source) || a.target.localeCompare(b.target)),
    folded: otherSteps,
  };
}
