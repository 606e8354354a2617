import { JOURNEY_LIMITS, JOURNEY_OTHER } from '@us/shared';
import { describe, expect, it } from 'vitest';
import { foldFlow } from '../../../src/features/journeys/fold.ts';
import { NONE, WIDTH } from '../../../src/features/journeys/groups.ts';

/** Groups of sessions entering at one of `pages` (page i by 5 + i sessions) and going on to /checkout. */
function entries(pages: number) {
  const names = [...Array.from({ length: pages }, (_, i) => `/product/${i}`), '/checkout'];
  const slots = new Int32Array(pages * WIDTH).fill(NONE);
  const sessions = new Int32Array(pages);
  for (let g = 0; g < pages; g++) {
    slots[g * WIDTH] = g;
    slots[g * WIDTH + 1] = pages;
    sessions[g] = 5 + g;
  }
  return { names, count: pages, slots, sessions };
}

describe('the journeys flow', () => {
  it('names at most the largest labels of a step, folding the rest into (other) with their sessions', () => {
    const pages = 2000;
    const flow = foldFlow(entries(pages), 0);
    const first = flow.nodes.filter((n) => n.step === 0);
    expect(first.filter((n) => n.label !== JOURNEY_OTHER)).toHaveLength(JOURNEY_LIMITS.namedPerStep);
    // The largest pages are the ones named.
    expect(first[0]?.label).toBe(JOURNEY_OTHER);
    expect(first.find((n) => n.label === `/product/${pages - 1}`)?.sessions).toBe(5 + pages - 1);
    expect(first.find((n) => n.label === `/product/${pages - 1 - JOURNEY_LIMITS.namedPerStep}`)).toBeUndefined();
    // No session is lost: the step's nodes add up to every session, and each node to its links onwards.
    const all = (pages * (5 + 5 + pages - 1)) / 2;
    expect(first.reduce((s, n) => s + n.sessions, 0)).toBe(all);
    for (const node of first) {
      const out = flow.links.filter((l) => l.source === node.id).reduce((s, l) => s + l.sessions, 0);
      expect(out).toBe(node.sessions);
    }
    expect(flow.nodes.length).toBeLessThanOrEqual(JOURNEY_LIMITS.namedPerStep + 3);
  });

  it('names every label of at least 5 sessions while a step has no more than the limit', () => {
    const flow = foldFlow(entries(10), 0);
    expect(flow.nodes.filter((n) => n.step === 0).map((n) => n.label)).not.toContain(JOURNEY_OTHER);
    expect(flow.folded).toBe(0);
  });
});
