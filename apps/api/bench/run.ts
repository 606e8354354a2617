// `npm run bench`: throughput and latency of the API beside a bare Node http server on this machine,
// the page script's size, sustained ingest into PostgreSQL, stats queries over a generated site, and a
// soak of mixed traffic at a moderate rate (errors, latency drift, memory growth, nothing lost), the
// bot-protection decision on one core, the edge worker SDK's added latency in workerd, and proxy mode (the
// service forwarding a live proxy hostname's requests to an origin) beside the origin asked directly.
//
// Environment: BENCH_SECONDS (5), BENCH_CONCURRENCY (32), BENCH_ROUNDS (5 alternating rounds per throughput
// figure), BENCH_ROUND_SECONDS (2), BENCH_PACED_ROUNDS (3 per paced figure), BENCH_INGEST_ROWS (200000),
// BENCH_PAGEVIEWS (10000000: the stats site), BENCH_STATS_RUNS (20), BENCH_SOAK_SECONDS (600),
// BENCH_EDGE_REQUESTS (4000 per worker), BENCH_MEMORY_SECONDS (30: the memory section's load),
// BENCH_MEMORY_SETTLE_SECONDS (10: its idle wait), BENCH_MEMORY_RATE (its collect reports/s; 30 % of bare http),
// BENCH_DATA_DIR (.data/bench), BENCH_ONLY (comma-separated sections: size, protection, edge, scaleout, memory,
// http, collect, proxy, mixed, ingest, stats, results, export, soak; and `year`, only when named:
// BENCH_YEAR_PER_DAY (300000) pageviews a day for 365 days, in its own BENCH_DATA_DIR).
// The scale-out section (scaleout.ts: one PostgreSQL 15 beside Citus, needs Citus built: scripts/citus/build.sh):
// BENCH_SCALEOUT_SITES (200), BENCH_SCALEOUT_PAGEVIEWS (2500000), BENCH_SCALEOUT_INGEST_ROWS (200000),
// BENCH_KEEP (keep its databases' folders).
import http from 'node:http';
import path from 'node:path';
import { createOrm } from '@us/db';
import { ensureSite } from '../scripts/seed/accounts.ts';
import { deleteTraffic } from '../scripts/seed/generate.ts';
import type { ApiInfo } from './api-server.ts';
import { formatBeside, formatPaced, loadBeside, pacedBeside } from './beside.ts';
import { askChild, startApiChild, startChild, stopChild } from './child.ts';
import { rollUpSite, timeDashboard, timeIncrementalRollup, timeSiteDayRollup } from './dashboard.ts';
import { edgeBench, formatEdge, isolateCost } from './edge.ts';
import { benchExport, collectRequest } from './export.ts';
import type { GcPauses } from './gc-pauses.ts';
import { formatIngest, ingestPath, insertBatches, postgresAlone } from './ingest.ts';
import { formatRow, mcpToolCall, runLoad } from './load.ts';
import { benchMemory, rssAfter } from './memory.ts';
import { mixedLoad } from './mixed.ts';
import { formatProtection, protectionBench } from './protection.ts';
import { formatProxyLatency, prepareProxySite, proxyRequest } from './proxy.ts';
import { fillResultDays, prepareResultsSite, resultsRoutes, startLiveTraffic } from './results.ts';
import { scaleoutBench } from './scaleout.ts';
import { edgeSdkSizes, formatEdgeSdkSizes, formatScriptSizes, scriptSizes } from './script-size.ts';
import { runSoak } from './soak.ts';
import { ensureStatsSite, formatLatency, getStatus, type Latency, STATS_DAYS, timeRuns } from './stats.ts';
import { yearBench } from './year.ts';

const here = import.meta.dirname;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const roundCount = Number(process.env.BENCH_ROUNDS ?? 5);
const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 2);
const pacedRounds = Number(process.env.BENCH_PACED_ROUNDS ?? 3);
const ingestRows = Number(process.env.BENCH_INGEST_ROWS ?? 200_000);
const statsPageviews = Number(process.env.BENCH_PAGEVIEWS ?? 10_000_000);
const statsRuns = Number(process.env.BENCH_STATS_RUNS ?? 20);
const soakSeconds = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const memorySeconds = Number(process.env.BENCH_MEMORY_SECONDS ?? 30);
const memorySettleSeconds = Number(process.env.BENCH_MEMORY_SETTLE_SECONDS ?? 10);
const only = new Set(
  (process.env.BENCH_ONLY ?? 'size,protection,edge,scaleout,memory,http,collect,proxy,mixed,ingest,stats,results,export,soak')
    .split(',')
    .map((s) => s.trim()),
);
const log = (s: string) => process.stderr.write(`${s}\n`);

console.log(
  `Benchmarks: ${seconds} s each, ${concurrency} keep-alive connections, loopback only; the API's throughput in ${roundCount} rounds of ${roundSeconds} s alternating with bare http, its paced latency in ${pacedRounds} rounds of ${seconds} s.\n`,
);

if (only.has('size')) console.log(`${formatScriptSizes(scriptSizes())}\n${formatEdgeSdkSizes(edgeSdkSizes())}`);
if (only.has('protection')) console.log(formatProtection(protectionBench()));
if (only.has('edge')) {
  log('› edge: three workers in workerd (miniflare), sequential requests taking turns');
  console.log(formatEdge(await edgeBench(), await isolateCost()));
}
if (only.has('scaleout')) {
  await scaleoutBench({
    dataDir: path.resolve(process.env.BENCH_DATA_DIR ?? '.data/bench'),
    sites: Number(process.env.BENCH_SCALEOUT_SITES ?? 200),
    pageviews: Number(process.env.BENCH_SCALEOUT_PAGEVIEWS ?? 2_500_000),
    ingestRows: Number(process.env.BENCH_SCALEOUT_INGEST_ROWS ?? 200_000),
    runs: statsRuns,
    keep: Boolean(process.env.BENCH_KEEP),
    log,
  });
}
// The remaining sections need the API; without any of them, stop here.
const apiSections = ['memory', 'http', 'collect', 'proxy', 'mixed', 'ingest', 'stats', 'results', 'export', 'year', 'soak'];
if (!apiSections.some((s) => only.has(s))) process.exit(0);

// bare http stays up beside the API: each throughput figure alternates rounds of both (beside.ts).
// The memory section paces its collect load at 30 % of bare http's rate, measured here.
const bare =
  only.has('http') || only.has('collect') || only.has('proxy') || only.has('memory') || only.has('mixed')
    ? await startChild<{ url: string }>(path.join(here, 'bare-server.ts'))
    : null;
let bareRps = 0;
if (bare) {
  await runLoad(bare.info.url, { method: 'GET', path: '/' }, { seconds: 1, concurrency }); // warm-up
  const constant = await runLoad(bare.info.url, { method: 'GET', path: '/' }, { seconds, concurrency });
  bareRps = constant.rps;
  console.log(formatRow('bare node http (constant)', constant));
}

log(`› starting the API with its database in ${process.env.BENCH_DATA_DIR ?? '.data/bench'}`);
// --expose-gc: the soak reads the API's memory after a full GC (see api-server.ts).
const api = await startApiChild<ApiInfo>(['--expose-gc']);
try {
  const auth = { authorization: `Bearer ${api.info.token}` };
  /** The API's RSS once a section is done (the memory section's own figures come first). */
  const sectionDone = async (section: string) => console.log(await rssAfter(api.proc, section));
  if (only.has('memory')) {
    const memory = { seconds: memorySeconds, settleSeconds: memorySettleSeconds };
    const fixed = Number(process.env.BENCH_MEMORY_RATE ?? 0);
    const rate = fixed ? { rate: fixed, rateNote: 'BENCH_MEMORY_RATE' } : { rate: bareRps * 0.3, rateNote: '30% of bare http' };
    console.log((await benchMemory(api, { ...memory, ...rate }, log)).join('\n'));
  }
  // Before each bare window the API stores what it buffered, so its flush does not run in bare http's time.
  const rounds = { rounds: roundCount, seconds: roundSeconds, concurrency, settle: () => askChild(api.proc, 'flush') };
  if (bare && only.has('http')) {
    const me = { method: 'GET', path: '/v1/me', headers: auth };
    console.log(formatBeside('GET /v1/me (token)', await loadBeside(bare.info.url, api.info.url, me, rounds)));
    const mcp = mcpToolCall(api.info.token, 'get_me');
    console.log(formatBeside('MCP tools/call get_me (token)', await loadBeside(bare.info.url, api.info.url, mcp, rounds)));
    await sectionDone('http');
  }

  if (bare && only.has('collect')) {
    const { publicKey, hostname } = api.info.collect;
    const collect = collectRequest(publicKey, hostname);
    const full = await loadBeside(bare.info.url, api.info.url, collect, rounds);
    console.log(formatBeside('POST /collect pageview (202)', full));
    // Latency at a steady arrival rate: half of what it just sustained, and the issue's "half of 60 %"
    // (30 % of bare http's rate beside it), each in rounds beside bare http paced at the same rate, sent by
    // the lean pacer; the second figure also with Node's http client sending, as measured before it.
    // Each line also names the API's longest GC pause over its rounds (gc-pauses.ts).
    const paced = { rounds: pacedRounds, seconds, settle: rounds.settle };
    const pacedFigure = async (name: string, o: Parameters<typeof pacedBeside>[3]) => {
      await askChild(api.proc, 'gc-pauses');
      const r = await pacedBeside(bare.info.url, api.info.url, collect, o);
      console.log(formatPaced(name, r, full.bare.rps, await askChild<GcPauses>(api.proc, 'gc-pauses')));
    };
    await pacedFigure('  paced at half its throughput', { ...paced, rate: full.api.rps / 2 });
    const goalRate = full.bare.rps * 0.3;
    await pacedFigure('  paced at 30% of bare http', { ...paced, rate: goalRate });
    await pacedFigure("  the same, sent by Node's http client", { ...paced, rate: goalRate, pacer: 'node' });
    await sectionDone('collect');
  }
  if (bare && only.has('proxy')) {
    // The origin is bare http itself: the figures are what the service adds between a visitor and an origin.
    await prepareProxySite(api.info.dbUrl, api.info.workspaceId, bare.info.url);
    const full = await loadBeside(bare.info.url, api.info.url, proxyRequest, rounds);
    console.log(formatBeside('proxy mode: GET a page through the service', full));
    const rate = full.api.rps / 2;
    const paced = await pacedBeside(bare.info.url, api.info.url, proxyRequest, {
      rounds: pacedRounds,
      seconds,
      settle: rounds.settle,
      rate,
    });
    console.log(formatProxyLatency(paced, rate));
    await sectionDone('proxy');
  }
  if (bare && only.has('mixed')) {
    const { publicKey, hostname } = api.info.collect;
    const collect = collectRequest(publicKey, hostname);
    // The rate is set by bare http's throughput in this run (its constant figure above).
    const lines = await mixedLoad({
      bareUrl: bare.info.url,
      bareRps,
      api: { ...api.info, proc: api.proc },
      collect,
      statsPageviews,
      rounds: { rounds: pacedRounds, seconds, settle: rounds.settle },
      log,
    });
    console.log(lines.join('\n'));
    await sectionDone('mixed');
  }
  if (bare) await stopChild(bare.proc);

  if (only.has('ingest') || only.has('stats') || only.has('results') || only.has('export')) {
    const orm = await createOrm(api.info.dbUrl, { poolMax: 6 });
    try {
      if (only.has('ingest')) {
        const em = orm.em.fork();
        const { site } = await ensureSite(em, {
          workspaceId: api.info.workspaceId,
          name: 'Ingest bench',
          hostname: 'ingest.bench.example',
          timezone: 'UTC',
        });
        await deleteTraffic(orm, site.id);
        log(`› ingest: ${ingestRows.toLocaleString('en')} pageview rows through buffer → flusher → insertRows`);
        const n = Math.min(ingestRows, 100_000);
        const alone = await postgresAlone(orm, api.info.dbUrl, site.id, n);
        console.log(formatIngest('PostgreSQL alone (insert…select)', alone));
        await deleteTraffic(orm, site.id);
        console.log(formatIngest('ingest path (memory buffer, 500/batch)', await ingestPath(orm, site.id, ingestRows), alone));
        await deleteTraffic(orm, site.id);
        console.log(formatIngest('insertRows, 500 rows per call', await insertBatches(orm, site.id, n, 500), alone));
        await deleteTraffic(orm, site.id);
        console.log(formatIngest('insertRows, 5000 rows per call', await insertBatches(orm, site.id, n, 5000), alone));
        await deleteTraffic(orm, site.id);
        await sectionDone('ingest');
      }

      if (only.has('stats') || only.has('results') || only.has('export')) {
        log(`› stats over ${statsPageviews.toLocaleString('en')} pageviews in ${STATS_DAYS} days`);
        const s = await ensureStatsSite(orm, api.info.workspaceId, statsPageviews, log);
        const conn = orm.em.getConnection();
        const size =
          s.pageviews >= 1e6 ? `${(s.pageviews / 1e6).toFixed(s.pageviews < 1e7 ? 1 : 0)}M` : s.pageviews.toLocaleString('en');
        const label = `${size} pageviews / ${STATS_DAYS} days`;
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        /** The baseline of the stats and results lines: PostgreSQL counting the 30 days' raw rows, in this run. */
        let count: Latency | null = null;
        const timeCount = async () => {
          count = await timeRuns(statsRuns, () =>
            conn.execute(
              'select count(*) from pageviews where site_id = ? and day between ? and ?',
              [s.siteId, s.from, s.to],
              'all',
            ),
          );
          console.log(formatLatency('  plain count(*) of those rows', count));
        };
        const ofCount = (l: Latency) => (count ? `   ${((l.p50 * 100) / count.p50).toFixed(1)}% of plain count(*)` : '');
        /** Times GET routes sequentially, one line each; a route that does not answer 200 is named, not timed. */
        const timeRoutes = async (routes: [string, string][]) => {
          for (const [name, route] of routes) {
            // The first ask computes what is not stored yet (today's day, on a live site once a minute).
            const firstStarted = performance.now();
            const first = await getStatus(api.info.url, route, api.info.token, agent);
            const firstMs = performance.now() - firstStarted;
            if (first.status !== 200) {
              console.log(`${name.padEnd(34)} not measured: HTTP ${first.status} ${first.body.slice(0, 160)}`);
              continue;
            }
            // A question the rollups do not keep keeps its days in the background after its first ask.
            const kept = await askChild<{ pending: number; ms: number }>(api.proc, 'kept-settled');
            const keptNote = kept.pending ? `   days kept in ${(kept.ms / 1000).toFixed(1)} s after it` : '';
            let bad = 0;
            const l = await timeRuns(statsRuns, async () => {
              if ((await getStatus(api.info.url, route, api.info.token, agent)).status !== 200) bad++;
            });
            console.log(
              formatLatency(
                name,
                l,
                `${ofCount(l)}   first ask ${firstMs.toFixed(0)} ms${keptNote}${bad ? `   ${bad} answers not 200!` : ''}`,
              ),
            );
          }
        };
        if (only.has('stats')) {
          console.log(`stats over ${label}:`);
          await timeCount();
          // Complete days are rolled up, as the job does an hour after each ends (only what is pending).
          const rolled = await rollUpSite(orm, s.siteId);
          if (rolled.days) {
            log(`  rolled up ${rolled.days} site-days in ${(rolled.ms / 1000).toFixed(1)} s (${rolled.failed} failed)`);
          }
          const yesterday = new Date(Date.parse(`${s.to}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
          // Its first count (no rollup stored), then counted again over the same rows (the write leaves them).
          let wholeDayMs = 0;
          for (const [name, stored] of [
            ['  rollup of one site-day', 'none'],
            ['  the same, counted again', 'same'],
          ] as const) {
            const r = await timeSiteDayRollup(orm, s.siteId, yesterday, 3, stored);
            wholeDayMs ||= r.latency.p50;
            console.log(
              formatLatency(
                name,
                r.latency,
                `   ${r.pageviews.toLocaleString('en')} pageviews, ${Math.round((r.pageviews * 1000) / r.latency.p50).toLocaleString('en')} pageviews/s`,
              ),
            );
          }
          // The same day kept by quarter-hours, as today's job keeps it: a step of its busiest hour, an hour's
          // step (what the job took before quarter-hours) for comparison, and its closing rollup (last: it
          // leaves the day complete, as the stats below expect).
          for (const [name, from, to] of [
            ['  rollup step 20:45 → 21:00', 20.75, 21],
            ['  rollup step 20:00 → 21:00 (an hour)', 20, 21],
            ['  rollup closing the day at 23:45', 23.75, null],
          ] as const) {
            const d = await timeIncrementalRollup(orm, s.siteId, yesterday, from, to);
            console.log(
              formatLatency(
                name,
                d.latency,
                `   ${d.recounted === null ? 'whole day counted' : `${d.recounted.toLocaleString('en')} visitors recounted`}, ${((d.latency.p50 * 100) / wholeDayMs).toFixed(1)}% of the whole day's first rollup`,
              ),
            );
          }
          // Filtered tables kept by an earlier run would make their first ask a later one.
          await conn.execute(`delete from result_days where site_id = ? and kind = 'kept'`, [s.siteId], 'run');
          await timeRoutes([
            ['  GET summary?days=30', `/v1/sites/${s.siteId}/summary?days=${STATS_DAYS}`],
            ['  GET top/page?days=30&country=DE', `/v1/sites/${s.siteId}/top/page?days=${STATS_DAYS}&where.country=DE`],
            ['  GET top/country?days=30&page=/', `/v1/sites/${s.siteId}/top/country?days=${STATS_DAYS}&where.page=%2F`],
            ['  GET top/referrer?days=30&country=DE', `/v1/sites/${s.siteId}/top/referrer?days=${STATS_DAYS}&where.country=DE`],
            [
              '  GET top/page?days=30&country=DE&device=desktop',
              `/v1/sites/${s.siteId}/top/page?days=${STATS_DAYS}&where.country=DE&where.device=desktop`,
            ],
            [
              '  GET top/source?…&country=DE&device=desktop&browser=Chrome',
              `/v1/sites/${s.siteId}/top/source?days=${STATS_DAYS}&where.country=DE&where.device=desktop&where.browser=Chrome`,
            ],
            // The same shapes with values not asked yet: their days were kept with the first asks' (every value).
            ['  GET top/referrer?days=30&country=FR', `/v1/sites/${s.siteId}/top/referrer?days=${STATS_DAYS}&where.country=FR`],
            [
              '  GET top/page?days=30&country=US&device=mobile',
              `/v1/sites/${s.siteId}/top/page?days=${STATS_DAYS}&where.country=US&where.device=mobile`,
            ],
            [
              '  GET top/source?…&country=FR&device=mobile&browser=Safari',
              `/v1/sites/${s.siteId}/top/source?days=${STATS_DAYS}&where.country=FR&where.device=mobile&where.browser=Safari`,
            ],
          ]);
          const [keptRows] = await conn.execute<{ entries: string; bytes: string | null }[]>(
            `select count(*) as entries, sum(pg_column_size(rows)) as bytes from result_days where site_id = ? and kind = 'kept'`,
            [s.siteId],
            'all',
          );
          console.log(
            `  (kept for those questions: ${Number(keptRows?.entries).toLocaleString('en')} entries, ${(Number(keptRows?.bytes ?? 0) / 1e6).toFixed(1)} MB)`,
          );
          // A browser's row clicked: four of the six reads name a pair no rollup keeps (raw on the first view,
          // kept after it); then another browser's, whose days that first view's fills kept too.
          const settle = () => askChild(api.proc, 'kept-settled');
          for (const [name, where, firstView] of [
            ['  dashboard view (6 reads at once)', {}, undefined],
            ['  dashboard view, country=DE', { country: 'DE' }, undefined],
            ['  dashboard view, browser=Chrome', { browser: 'Chrome' }, { settle }],
            ['  dashboard view, browser=Firefox', { browser: 'Firefox' }, { settle }],
          ] as const) {
            const l = await timeDashboard(api.info.url, api.info.token, s.siteId, statsRuns, where, undefined, firstView);
            const first = l.first === null ? '' : `   first view ${l.first.toFixed(0)} ms`;
            console.log(
              formatLatency(
                name,
                l,
                `${ofCount(l)}${first}${l.bad.length ? `   ${l.bad.length} answers not 200: ${[...new Set(l.bad)].join(', ')}` : ''}`,
              ),
            );
          }
          // Journeys count the goals and experiments of the site's settings: the results bench's.
          await prepareResultsSite(orm, s.siteId);
          await fillResultDays(orm, s.siteId);
          const stop = startLiveTraffic(orm, s.siteId);
          await timeRoutes([
            ['  GET journeys?days=30', `/v1/sites/${s.siteId}/journeys?days=${STATS_DAYS}`],
            ['  GET journeys?days=30&zoom=page', `/v1/sites/${s.siteId}/journeys?days=${STATS_DAYS}&zoom=page`],
          ]);
          console.log(`  (live traffic meanwhile: ${await stop()} rows inserted for today)`);
          await sectionDone('stats');
        }
        if (only.has('results')) {
          await prepareResultsSite(orm, s.siteId);
          await fillResultDays(orm, s.siteId);
          console.log(`results over ${label} (3 goals, experiment pricing a/b, a 3-step funnel), with live traffic:`);
          if (!count) await timeCount();
          const stop = startLiveTraffic(orm, s.siteId);
          await timeRoutes(resultsRoutes(s.siteId, STATS_DAYS));
          console.log(`  (live traffic meanwhile: ${await stop()} rows inserted for today)`);
          await sectionDone('results');
        }
        if (only.has('export')) {
          // A whole UTC day of the site: the day before its last.
          const day = new Date(Date.parse(`${s.to}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
          log(`› export: one day (${day}) of ${label}, downloaded through its links`);
          console.log((await benchExport({ ...api.info, proc: api.proc }, s.siteId, day, concurrency)).join('\n'));
          await sectionDone('export');
        }
        agent.destroy();
      }
    } finally {
      await orm.close();
    }
  }

  if (only.has('year')) {
    log('› year: a site with 365 days of data (its own BENCH_DATA_DIR: the stats section truncates what it finds)');
    const orm = await createOrm(api.info.dbUrl, { poolMax: 6 });
    try {
      const perDay = Number(process.env.BENCH_YEAR_PER_DAY ?? 300_000);
      console.log((await yearBench({ orm, api: api.info, perDay, runs: statsRuns, log })).join('\n'));
    } finally {
      await orm.close();
    }
    await sectionDone('year');
  }

  if (only.has('soak')) {
    console.log((await runSoak(api, soakSeconds, log)).join('\n'));
    await sectionDone('soak');
  }
} finally {
  await stopChild(api.proc);
}
