import type { StatsResult } from '@us/shared';
import { describe, expect, it } from 'vitest';
import { biggestMoves, changesOf, topOf } from '../../../src/features/reports/changes.ts';

const row = (value: string | null, visitors: number) => ({ value, counts: { sessions: visitors, visitors } });
const answer = (rows: ReturnType<typeof row>[], previous: ReturnType<typeof row>[] | null) =>
  ({
    rows,
    previous: previous && { from: '2026-11-09', to: '2026-11-15', totals: {}, rows: previous },
  }) as unknown as StatsResult;

/** The report's "biggest changes": visitors per value in the period against the previous one. */
describe('report changes', () => {
  it('pairs each value with its previous visitors; values gone since count 0 now; no value is named as the dashboard does', () => {
    const changes = changesOf('source', answer([row(null, 5), row('a.example', 2)], [row('a.example', 4), row('b.example', 3)]));
    expect(changes).toEqual([
      { value: 'Direct / none', now: 5, before: 0 },
      { value: 'a.example', now: 2, before: 4 },
      { value: 'b.example', now: 0, before: 3 },
    ]);
    expect(topOf(changes, 5).map((c) => c.value)).toEqual(['Direct / none', 'a.example']);
    expect(biggestMoves([{ dimension: 'source', changes }])).toEqual({
      rose: { value: 'Direct / none', now: 5, before: 0, dimension: 'source' },
      fell: { value: 'b.example', now: 0, before: 3, dimension: 'source' },
    });
  });

  it('names no rise or fall without a previous period, or when nothing moved', () => {
    const none = changesOf('page', answer([row('/', 3)], null));
    expect(none).toEqual([{ value: '/', now: 3, before: null }]);
    expect(biggestMoves([{ dimension: 'page', changes: none }])).toEqual({ rose: null, fell: null });
    const flat = changesOf('page', answer([row('/', 3)], [row('/', 3)]));
    expect(biggestMoves([{ dimension: 'page', changes: flat }])).toEqual({ rose: null, fell: null });
  });

  it('looks across sources and pages; a tie goes to the value met first', () => {
    const sources = changesOf('source', answer([row('x.example', 4)], [row('x.example', 1)]));
    const pages = changesOf('page', answer([row('/pricing', 5)], [row('/pricing', 2)]));
    expect(
      biggestMoves([
        { dimension: 'source', changes: sources },
        { dimension: 'page', changes: pages },
      ]).rose,
    ).toMatchObject({
      dimension: 'source',
      value: 'x.example',
    });
  });
});
