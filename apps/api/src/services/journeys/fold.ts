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
const SEP = '\u0000';

function bump(m: Map<string, number>, key: string, n: number) {
  m.set(key, (m.get(key) ?? 0) + n);
}

/**
 * Folds the sequences around step `centre` (0 from the first step; 0 at the anchor): the centre step
 * by its own label, each later step by (folded step before, label), each earlier step by (label,
 * folded step after).
 */
export function foldFlow(sequences: readonly Sequence[], centre = 0): Flow {
  const seqs = sequences.filter((s) => s.labels.length > 0 && s.sessions > 0);
  const at = (s: Sequence, step: number) => s.labels[step - s.first];
  const folded = seqs.map(() => new Map<number, string>());
  let min = centre;
  let max = centre;
  for (const s of seqs) {
    min = Math.min(min, s.first);
    max = Math.max(max, s.first + s.labels.length - 1);
  }
  let otherSteps = 0;

  const foldStep = (step: number, neighbour: number | null) => {
    const keyOf = (i: number, s: Sequence) => {
      const label = at(s, step) as string;
      if (neighbour === null) return label;
      const n = folded[i]?.get(neighbour) as string;
      return step > neighbour ? `${n}${SEP}${label}` : `${label}${SEP}${n}`;
    };
    const counts = new Map<string, number>();
    seqs.forEach((s, i) => {
      if (at(s, step) !== undefined) bump(counts, keyOf(i, s), s.sessions);
    });
    seqs.forEach((s, i) => {
      const label = at(s, step);
      if (label === undefined) return;
      const named = (counts.get(keyOf(i, s)) ?? 0) >= MIN;
      if (!named) otherSteps += s.sessions;
      folded[i]?.set(step, named ? label : JOURNEY_OTHER);
    });
  };

  foldStep(centre, null);
  for (let step = centre + 1; step <= max; step++) foldStep(step, step - 1);
  for (let step = centre - 1; step >= min; step--) foldStep(step, step + 1);

  const nodes = new Map<string, FlowNode>();
  const links = new Map<string, number>();
  seqs.forEach((s, i) => {
    const f = folded[i] as Map<number, string>;
    for (let step = s.first; step < s.first + s.labels.length; step++) {
      const label = f.get(step) as string;
      const id = nodeId(step, label);
      const node = nodes.get(id) ?? { id, step, label, sessions: 0 };
      node.sessions += s.sessions;
      nodes.set(id, node);
      const next = f.get(step + 1);
      if (next !== undefined) bump(links, `${id}${SEP}${nodeId(step + 1, next)}`, s.sessions);
    }
  });
  const byStepThenSize = (a: FlowNode, b: FlowNode) =>
    a.step - b.step || b.sessions - a.sessions || a.label.localeCompare(b.label);
  return {
    nodes: [...nodes.values()].sort(byStepThenSize),
    links: [...links.entries()]
      .map(([key, sessions]) => {
        const [source, target] = key.split(SEP) as [string, string];
        return { source, target, sessions };
      })
      .sort((a, b) => b.sessions - a.sessions || a.source.localeCompare(b.source) || a.target.localeCompare(b.target)),
    folded: otherSteps,
  };
}
