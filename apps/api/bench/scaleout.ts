// The scale-out section (`BENCH_ONLY=scaleout`): the same data and the same work on one PostgreSQL 15 and on
// a Citus coordinator with two workers, all on this machine, in one run, each figure printed with Citus's
// ratio to PostgreSQL's. Many sites, one large (30 % of the pageviews): ingest through the real insert path,
// the rollup job over every site-day, the whole rollup of the large site's busiest day, and the dashboard
// view of the large site and of a small one (its six reads over HTTP, as the stats section times it).
// Both databases are started fresh under BENCH_DATA_DIR/scaleout and stopped at the end (their folders
// removed unless BENCH_KEEP is set).
import path from 'node:path';
import { createOrm, type Orm } from '@us/db';
import { CITUS_VERSION, citusInstalled } from '../../../scripts/citus/cluster.ts';
import { runRollups } from '../src/analytics/rollup/rollup.ts';
import { runTodayRollups } from '../src/analytics/rollup/rollup-today.ts';
import type { ApiInfo } from './api-server.ts';
import { startApiChild, stopChild } from './child.ts';
import { timeDashboard, timeSiteDayRollup } from './dashboard.ts';
import type { IngestFigures } from './ingest.ts';
import {
  type BenchSite,
  busiestDay,
  copyTraffic,
  ensureScaleoutSites,
  generateSites,
  LARGE_SHARE,
  siteShares,
  vacuumAnalyze,
} from './scaleout-data.ts';
import { formatVersus, VERSUS_HEADER, type Versus } from './scaleout-format.ts';
import { ingestOverSites, rowsOverSites } from './scaleout-ingest.ts';
import { formatLayout, sitesPerWorker } from './scaleout-layout.ts';
import { type ScaleoutNodes, startScaleoutNodes } from './scaleout-nodes.ts';
import { STATS_DAYS } from './stats.ts';

export interface ScaleoutOptions {
  dataDir: string;
  sites: number;
  pageviews: number;
  ingestRows: number;
  runs: number;
  keep: boolean;
  log: (s: string) => void;
}

interface Engine {
  label: 'PostgreSQL' | 'Citus';
  url: string;
  orm: Orm;
  sites: BenchSite[];
}

/** Times the today's-rollups job over the sites (each brought up to the last quarter-hour boundary). */
async function timeTodayRollups(orm: Orm, sites: BenchSite[]): Promise<number> {
  const t = performance.now();
  const run = await runTodayRollups(orm, { siteIds: sites.map((s) => s.id), wait: true });
  if (run.failed) throw new Error(`${run.failed} sites failed`);
  return performance.now() - t;
}

/** Reads the bench API's workspace on a database: started once (migrating it), then stopped again. */
async function benchWorkspace(url: string, dataDir: string): Promise<string> {
  const api = await startApiChild<ApiInfo>([], { BENCH_DATABASE_URL: url, BENCH_DATA_DIR: dataDir });
  await stopChild(api.proc);
  return api.info.workspaceId;
}

export async function scaleoutBench(o: ScaleoutOptions): Promise<void> {
  if (!citusInstalled()) {
    console.log(`scale-out: not measured: Citus ${CITUS_VERSION} is not installed (bash scripts/citus/build.sh, as root)`);
    return;
  }
  const dir = path.join(o.dataDir, 'scaleout');
  o.log(`› scale-out: one PostgreSQL 15 and Citus ${CITUS_VERSION} (coordinator + 2 workers) under ${dir}`);
  const nodes = await startScaleoutNodes(dir);
  // Ctrl-C must not leave four PostgreSQL servers running.
  const onSignal = () => {
    nodes.stop({ keep: o.keep });
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const engines: Engine[] = [];
  try {
    for (const [label, url] of [
      ['PostgreSQL', nodes.postgres.url],
      ['Citus', nodes.citus.url],
    ] as const) {
      const workspaceId = await benchWorkspace(url, path.join(dir, `api-${label}`));
      const orm = await createOrm(url, { poolMax: 6 });
      engines.push({ label, url, orm, sites: await ensureScaleoutSites(orm, workspaceId, o.sites) });
    }
    await measure(o, dir, nodes, engines as [Engine, Engine]);
  } finally {
    for (const e of engines) await e.orm.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    nodes.stop({ keep: o.keep });
    if (o.keep) o.log(`  kept: ${nodes.postgres.url} and ${nodes.citus.url} (stopped; folders in ${dir})`);
  }
}

async function measure(o: ScaleoutOptions, dir: string, nodes: ScaleoutNodes, [pg, citus]: [Engine, Engine]) {
  const shares = siteShares(o.pageviews, o.sites);
  o.log(`  generating ${o.pageviews.toLocaleString('en')} pageviews over ${o.sites} sites on PostgreSQL`);
  const generated = await generateSites(pg.orm, pg.sites, shares, o.log);
  await vacuumAnalyze(pg.orm);
  o.log(`  generated in ${(generated.ms / 1000).toFixed(0)} s; copying the rows into Citus`);
  const copied = await copyTraffic(pg.url, citus.orm, citus.url, pg.sites, citus.sites);
  await vacuumAnalyze(citus.orm);
  const r = generated.rows;
  console.log(
    `scale-out over ${o.sites} sites, ${STATS_DAYS} days: ${r.pageviews.toLocaleString('en')} pageviews (one site ${Math.round(LARGE_SHARE * 100)} %, the others ${shares[1]?.toLocaleString('en')} each), ${r.page_leaves.toLocaleString('en')} leaves, ${r.events.toLocaleString('en')} events, ${r.requests.toLocaleString('en')} requests; the same rows in both (copied into Citus in ${(copied.ms / 1000).toFixed(0)} s)`,
  );
  console.log(`one PostgreSQL 15 beside Citus ${nodes.citus.workers.length} workers + coordinator, all on this machine:`);
  console.log(formatLayout(await sitesPerWorker(citus.orm, citus.sites, shares)));
  console.log(VERSUS_HEADER);
  const line = (v: Omit<Versus, 'postgres' | 'citus'>, [a, b]: [number, number]) =>
    console.log(formatVersus({ ...v, postgres: a, citus: b }));
  /** Runs `fn` on PostgreSQL, then on Citus. */
  const onBoth = async <T>(fn: (e: Engine) => Promise<T>): Promise<[T, T]> => [await fn(pg), await fn(citus)];

  // Rollups done first, as the job leaves a site's complete days and today up to its last quarter-hour.
  const rolled = await onBoth(async (e) => {
    const siteIds = e.sites.map((s) => s.id);
    const t = performance.now();
    const run = await runRollups(e.orm, { siteIds, wait: true, maxDays: 1_000_000 });
    if (run.failed) throw new Error(`${run.failed} site-days failed`);
    return { ms: performance.now() - t, siteDays: run.rolled + run.empty };
  });
  line({ name: 'rollup job: every complete site-day', unit: 's', better: 'lower', note: `${rolled[0].siteDays} site-days` }, [
    rolled[0].ms / 1000,
    rolled[1].ms / 1000,
  ]);
  const today = await onBoth((e) => timeTodayRollups(e.orm, e.sites));
  line({ name: "today's rollups of every site", unit: 's', better: 'lower' }, [today[0] / 1000, today[1] / 1000]);

  const day = await busiestDay(pg.orm, pg.sites[0]!.id);
  const dayRollup = await onBoth((e) => timeSiteDayRollup(e.orm, e.sites[0]!.id, day, 5));
  line(
    {
      name: `rollup of the large site's busiest day, p50`,
      unit: 'ms',
      better: 'lower',
      note: `${dayRollup[0].pageviews.toLocaleString('en')} pageviews (${day}), ${dayRollup[0].latency.runs} runs`,
    },
    [dayRollup[0].latency.p50, dayRollup[1].latency.p50],
  );

  // The dashboard through each database's own API, one API up at a time (its jobs must not run beside the
  // other database's timings).
  const small = o.sites - 1;
  const views = await onBoth(async (e) => {
    o.log(`  dashboard on ${e.label}: starting its bench API`);
    const api = await startApiChild<ApiInfo>([], { BENCH_DATABASE_URL: e.url, BENCH_DATA_DIR: path.join(dir, `api-${e.label}`) });
    try {
      const time = (i: number) => timeDashboard(api.info.url, api.info.token, e.sites[i]!.id, o.runs);
      return { large: await time(0), small: await time(small) };
    } finally {
      await stopChild(api.proc);
    }
  });
  for (const [which, share] of [
    ['large', shares[0]],
    ['small', shares[small]],
  ] as const) {
    const [a, b] = [views[0][which], views[1][which]];
    const bad = [...a.bad, ...b.bad];
    const note = `${share?.toLocaleString('en')} pageviews, ${a.runs}/${b.runs} runs${bad.length ? `; ${bad.length} answers not 200: ${[...new Set(bad)].join(', ')}!` : ''}`;
    line({ name: `dashboard view, ${which} site, p50`, unit: 'ms', better: 'lower', note }, [a.p50, b.p50]);
    line({ name: `dashboard view, ${which} site, p99`, unit: 'ms', better: 'lower' }, [a.p99, b.p99]);
  }

  // Last: its rows land in today's partitions of the same sites.
  o.log(`  ingest: ${o.ingestRows.toLocaleString('en')} pageview rows over ${o.sites} sites, on each`);
  const ingested = await onBoth((e) => ingestOverSites(e.orm, e.sites, rowsOverSites(e.sites, shares, o.ingestRows)));
  const rate = (f: IngestFigures) => (f.rows * 1000) / f.ms;
  const lost = ingested
    .map((f, i) => (f.committed === f.rows ? '' : `${i ? 'Citus' : 'PostgreSQL'} committed ${f.committed} of ${f.rows}!`))
    .filter(Boolean)
    .join('; ');
  line(
    {
      name: `ingest path over ${o.sites} sites`,
      unit: 'rows/s',
      better: 'higher',
      note: `${ingested[0].rows.toLocaleString('en')} rows, buffer → flusher → insert${lost ? `; ${lost}` : ''}`,
    },
    [rate(ingested[0]), rate(ingested[1])],
  );
}
