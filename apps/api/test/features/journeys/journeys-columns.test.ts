// The journeys answer's column form: pair numbering, the packed span (every width) and summing equal
// groups, each checked against the plain answer it replaces.
import { describe, expect, it } from 'vitest';
import { mulberry32 as rng } from '../../../scripts/seed/random.ts';
import { journeyAnswer } from '../../../src/features/journeys/answer.ts';
import type { GoalDef } from '../../../src/features/journeys/goals.ts';
import { GroupColumns } from '../../../src/features/journeys/groups.ts';
import { packGroups, unpackGroups } from '../../../src/features/journeys/packing.ts';
import { PairIndex } from '../../../src/features/journeys/pair-index.ts';

const GOALS: GoalDef[] = [
  { id: 'signup', name: 'Signup', type: 'event', match: 'signup', prefix: false },
  { id: 'blog', name: 'Blog', type: 'path', match: '/blog/', prefix: true },
];
const EXPERIMENTS = [{ key: 'pricing', name: 'Pricing', variants: ['a', 'b'], status: 'running' as const }];

/** Groups over `labels` distinct pages, many of them repeated, with sessions up to `most`. */
function randomColumns(seed: number, labels: number, groups: number, most = 9) {
  const r = rng(seed);
  const cols = new GroupColumns();
  const list: [string[], string, number][] = [];
  for (let g = 0; g < groups; g++) {
    // A small alphabet for most steps, so equal sequences recur and some groups reach 5 sessions.
    const steps = Array.from({ length: Math.floor(r() * 6) }, () =>
      r() < 0.8 ? `/p${Math.floor(r() * 6)}` : `/q${Math.floor(r() * labels)}`,
    );
    const flags = `${r() < 0.3 ? 1 : 0}${r() < 0.2 ? 1 : 0}`;
    const sessions = 1 + Math.floor(r() * most);
    list.push([steps, flags, sessions]);
    cols.add(steps, flags, sessions);
  }
  cols.addExposure({ experiment: 'pricing', variant: 'a', sessions: 40, converted: 4 });
  cols.addExposure({ experiment: 'pricing', variant: 'b', sessions: 3, converted: 1 });
  return { cols, list };
}

const answer = (cols: GroupColumns) => journeyAnswer(cols, { goals: GOALS, experiments: EXPERIMENTS, anchor: null });

describe('PairIndex', () => {
  it('numbers pairs in order of first sight, like a map of their text, across growth and negative numbers', () => {
    const r = rng(3);
    const index = new PairIndex();
    const byText = new Map<string, number>();
    for (let i = 0; i < 200_000; i++) {
      const x = Math.floor(r() * 2000) - 1;
      const y = r() < 0.5 ? Math.floor(r() * 50) - 1 : Math.floor(r() * 2 ** 31);
      const key = `${x},${y}`;
      if (!byText.has(key)) byText.set(key, byText.size);
      expect(index.id(x, y)).toBe(byText.get(key));
    }
    expect(index.size).toBe(byText.size);
  });
});

describe('journey columns', () => {
  it('gives one answer whether equal groups come summed or apart', () => {
    const { cols, list } = randomColumns(11, 40, 3000);
    const apart = new GroupColumns();
    // Every group as single sessions: the answer must not change.
    for (const [steps, flags, sessions] of list) for (let i = 0; i < sessions; i++) apart.add(steps, flags, 1);
    for (const x of cols.exposures.values()) apart.addExposure(x);
    const summed = cols.summed();
    expect(summed.count).toBeLessThan(cols.count);
    expect(answer(apart)).toEqual(answer(cols));
    expect(answer(summed)).toEqual(answer(cols));
    expect(answer(cols).paths.length).toBeGreaterThan(3);
    expect(answer(cols).flow.nodes.some((n) => n.label === '(other)')).toBe(true);
  });

  it.each([
    ['one byte', 40, 9, [1, 1, 1]],
    ['two bytes for labels', 400, 9, [2, 1, 1]],
    ['four bytes for sessions', 40, 100_000, [1, 1, 4]],
  ])('reads back a packed span exactly (%s)', (_, labels, most, widths) => {
    const { cols } = randomColumns(5, labels, 5000, most);
    const { header, bytes } = packGroups(cols);
    expect(header.widths).toEqual(widths);
    // Read from an unaligned view inside a larger buffer, as the driver may hand it over.
    const padded = Buffer.concat([Buffer.from([7]), bytes]).subarray(1);
    const back = unpackGroups(JSON.parse(JSON.stringify(header)), padded);
    expect(back.count).toBe(cols.count);
    expect([...back.steps]).toEqual([...cols.steps.subarray(0, cols.count * 5)]);
    expect([...back.sessions]).toEqual([...cols.sessions.subarray(0, cols.count)]);
    expect(answer(back)).toEqual(answer(cols));
    // A read-back span takes the newer days' groups after it.
    back.add(['/p1', '/new'], '10', 5);
    cols.add(['/p1', '/new'], '10', 5);
    expect(answer(back)).toEqual(answer(cols));
  });

  it('refuses a packed span whose size does not match its header', () => {
    const { header, bytes } = packGroups(randomColumns(2, 10, 100).cols);
    expect(() => unpackGroups(header, bytes.subarray(1))).toThrow(/bytes for 100 groups/);
  });
});
