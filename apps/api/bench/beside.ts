// A figure of the API measured beside the bare Node http server in alternating rounds. On a shared machine
// the speed of both drifts within a minute; one window of each, minutes apart, let that drift into the
// ratio (docs/performance/history.md, "Measuring beside bare http"). Alternating short windows
// (bare first in even rounds, the API first in odd ones) gives every round its own ratio under the same
// conditions, and the figure is their median.
import { formatGcPauses, type GcPauses } from './gc-pauses.ts';
import { runPacedLean } from './lean-pacer.ts';
import { combineResults, formatRow, type LoadRequest, type LoadResult, runLoad, runPaced } from './load.ts';

export interface Rounds {
  /** Alternating rounds, each one window of the API and one of bare http. */
  rounds: number;
  /** Seconds of each window. */
  seconds: number;
  concurrency: number;
  /**
   * Runs before each bare window: the API finishes what its last window left it (the bench flushes its
   * buffered rows), so that work does not land in bare http's time.
   */
  settle?: () => Promise<unknown>;
}

export interface BesideResult {
  api: LoadResult;
  bare: LoadResult;
  /** Each round's API rate over bare http's, in round order. */
  ratios: number[];
  /** Their median: the figure. */
  ratio: number;
}

const BARE: LoadRequest = { method: 'GET', path: '/' };

function median(xs: readonly number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Runs `rounds` pairs of windows, bare http's and the API's, bare first in even rounds and the API first in
 * odd ones, `settle` before each bare window; answers each side's results in round order.
 */
async function alternate(
  o: Pick<Rounds, 'rounds' | 'settle'>,
  bareWindow: () => Promise<LoadResult>,
  apiWindow: () => Promise<LoadResult>,
): Promise<{ api: LoadResult[]; bare: LoadResult[] }> {
  const api: LoadResult[] = [];
  const bare: LoadResult[] = [];
  for (let round = 0; round < o.rounds; round++) {
    if (round % 2 === 0) {
      await o.settle?.();
      bare.push(await bareWindow());
      api.push(await apiWindow());
    } else {
      api.push(await apiWindow());
      await o.settle?.();
      bare.push(await bareWindow());
    }
  }
  await o.settle?.();
  return { api, bare };
}

/** Closed-loop throughput of `req` on the API beside bare http's, in alternating rounds (after a warm-up of each). */
export async function loadBeside(bareUrl: string, apiUrl: string, req: LoadRequest, o: Rounds): Promise<BesideResult> {
  const window = { seconds: o.seconds, concurrency: o.concurrency };
  await runLoad(apiUrl, req, { seconds: 1, concurrency: o.concurrency });
  await o.settle?.();
  await runLoad(bareUrl, BARE, { seconds: 1, concurrency: o.concurrency });
  const { api, bare } = await alternate(
    o,
    () => runLoad(bareUrl, BARE, window),
    () => runLoad(apiUrl, req, window),
  );
  const ratios = api.map((a, i) => a.rps / (bare[i] as LoadResult).rps);
  return { api: combineResults(api), bare: combineResults(bare), ratios, ratio: median(ratios) };
}

/**
 * Open-loop latency of `req` on the API at `rate` requests a second, in rounds alternating with bare http
 * paced at the same rate: the API's percentiles over all its rounds, and bare http's beside them (the
 * machine's own tail at that rate: its pauses delay any server's answers). The load comes from the lean
 * pacer (raw sockets, see lean-pacer.ts) unless `pacer` is `node` (Node's http client, as before). A second of
 * each is sent first and not counted.
 */
export async function pacedBeside(
  bareUrl: string,
  apiUrl: string,
  req: LoadRequest,
  o: Omit<Rounds, 'concurrency'> & { rate: number; pacer?: 'lean' | 'node' },
): Promise<{ api: LoadResult; bare: LoadResult; apiRounds: LoadResult[] }> {
  const window = { rate: o.rate, seconds: o.seconds };
  const pace = o.pacer === 'node' ? runPaced : runPacedLean;
  // A second of each first, not counted (as loadBeside warms up): the first paced second after a pause
  // ran the API's slowest round.
  await pace(apiUrl, req, { rate: o.rate, seconds: 1 });
  await o.settle?.();
  await pace(bareUrl, BARE, { rate: o.rate, seconds: 1 });
  const { api, bare } = await alternate(
    o,
    () => pace(bareUrl, BARE, window),
    () => pace(apiUrl, req, window),
  );
  return { api: combineResults(api), bare: combineResults(bare), apiRounds: api };
}

/** A throughput line: the API's rate and latency over all rounds, the median ratio and the rounds' range. */
export function formatBeside(name: string, r: BesideResult) {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lo = Math.min(...r.ratios);
  const hi = Math.max(...r.ratios);
  return `${formatRow(name, r.api)}  ${pct(r.ratio)} of bare http   (median of ${r.ratios.length} rounds, ${pct(lo)}–${pct(hi)}; bare ${Math.round(r.bare.rps)} req/s)`;
}

/**
 * A paced line: the API's percentiles over all rounds with each round's p99 (and its longest GC pause, when
 * read), then bare http's at the same rate.
 */
export function formatPaced(name: string, r: Awaited<ReturnType<typeof pacedBeside>>, bareRps: number, gc?: GcPauses) {
  const rounds = r.apiRounds.map((x) => x.p99.toFixed(1)).join(', ');
  return [
    `${formatRow(name, r.api)}  ${((r.api.rps / bareRps) * 100).toFixed(1)}% of bare http   (p99 of its ${r.apiRounds.length} rounds: ${rounds} ms${gc ? `; ${formatGcPauses(gc)}` : ''})`,
    formatRow('    bare http paced at the same rate', r.bare),
  ].join('\n');
}
