// A visitor-day's visits in the rollup tallies (rollup-visits.ts): what one visitor's rows hold while they are
// counted. One address may send a report a few times a second all day (the collect budget per address), and all of
// it is one visitor-day: its rows used to be held until the visitor ended, ~330 B a row of the rollup thread's heap.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { EXIT_COLUMN, Interner, PAGEVIEW_ROWS, StreamTally, type TallyRow } from '../../../src/analytics/rollup/rollup-tally.ts';
import { VisitExits } from '../../../src/analytics/rollup/rollup-visits.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** The heap in use after a full collection, MB. */
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const PATH = 0;
/** A tally of pageviews by page with exit pages, and the visits feeding it. */
function counting() {
  const columns = [new Interner()];
  const lanes = new Interner();
  const tally = new StreamTally(
    lanes,
    columns,
    [{ dimension: 'page', columns: [PATH] }],
    PAGEVIEW_ROWS,
    true,
    [{ dimension: 'exit_page', columns: [EXIT_COLUMN] }],
    PATH,
  );
  const visits = new VisitExits(tally, PATH);
  const row: TallyRow = { lane: 0, ids: new Int32Array(1), in0: 1, in1: 0, searched: 0, scroll: NaN, ms: NaN, cents: NaN };
  /** One pageview of the visitor (rows come in the visit order, as the rollup's stream sends them). */
  const take = (visitor: string, at: string, pageviewId: string, path: string, start: boolean) => {
    visits.next(visitor, '2026-12-01');
    row.lane = lanes.id('human');
    row.ids[PATH] = (columns[0] as Interner).id(path);
    row.in1 = start ? 1 : 0;
    tally.add(row);
    visits.take(row, at, pageviewId, start);
  };
  const exits = () => {
    visits.flush();
    return Object.fromEntries(
      tally
        .rows()
        .filter((r) => r.metric_set === 'sessions' && r.dimension === 'exit_page')
        .map((r) => [r.value, Number(r.count)]),
    );
  };
  return { take, exits };
}

/** An instant `i` ms into the day, as PostgreSQL writes it. */
const at = (i: number) => new Date(Date.UTC(2026, 11, 1) + i).toISOString();

describe("a visitor-day's visits in the rollup tallies", () => {
  it('holds memory per visit, not per row: one visitor of 300,000 pageviews in one visit adds under 8 MB', () => {
    const { take, exits } = counting();
    const before = heapMb();
    take('v', at(0), 'pv-0', '/', true);
    for (let i = 1; i < 300_000; i++) take('v', at(i), `pv-${i}`, `/p${i % 50}`, false);
    const grown = heapMb() - before;
    expect(grown).toBeLessThan(8);
    expect(exits()).toEqual({ '/p49': 1 });
  });

  it('ends a visit at the next start, and gives each start of a visit (peers: same instant and pageview) each end', () => {
    const { take, exits } = counting();
    // Rows before the visitor-day's first start are in no visit.
    take('a', at(0), 'a0', '/before', false);
    take('a', at(1), 'a1', '/home', true);
    take('a', at(2), 'a2', '/pricing', false);
    // A new start ends the visit at /pricing; two peers start the next one, which ends at /docs.
    take('a', at(3), 'a3', '/p', true);
    take('a', at(3), 'a3', '/p', true);
    take('a', at(4), 'a4', '/docs', false);
    // Another visitor: the last visit of 'a' ended with its rows.
    take('b', at(0), 'b0', '/only', true);
    expect(exits()).toEqual({ '/pricing': 1, '/p': 2, '/docs': 2, '/only': 1 });
  });
});
