// A quick loop for the whole-day rollup (issue 41): starts the embedded PostgreSQL on a bench folder,
// picks the busiest site-day, and times, alternating within one run,
//   - baselines: a plain count(*) of the day's pageviews, and a COPY of its pageview rows (all columns)
//     read to the end without parsing;
//   - the rollup as the job runs it (rollupSiteDay: the rollup thread, COPY streams, write);
//   - its stages in this process: the COPY streams read to the end without parsing (PostgreSQL's share),
//     the tallies over those bytes held in memory (the process's share), and the write of the rows (where
//     none were stored, and over the same rows).
// Usage: BENCH_DATA_DIR=.data/bench npx tsx apps/api/bench/rollup-day.ts [runs=5] [siteId day], with the API's
// malloc settings in the environment to count as the API does (apps/api/node-flags.json's env; `npm run bench`
// sets them).
// ROLLUP_DAY_STAGES=0 skips the stage timings; =job times the job's runs back to back, the baselines once
// after them; =step the quarter-hour step of the busiest hour (the bench's); =thread times only the job beside the same counting in this
// thread; =tally only the tallies over held bytes (for node --cpu-prof).
import path from 'node:path';
import { createOrm, migrate, startEmbeddedPostgres } from '@us/db';
import pg from 'pg';
import { pooledCopyOut } from '../src/analytics/rollup/copy-connections.ts';
import { rollupSiteDay, siteDaySource } from '../src/analytics/rollup/rollup.ts';
import { tallySiteDay } from '../src/analytics/rollup/rollup-streams.ts';
import { stopRollupThreads } from '../src/analytics/rollup/rollup-thread.ts';
import { replaceSiteDayRollup } from '../src/analytics/rollup/rollup-write.ts';
import { timeIncrementalRollup } from './dashboard.ts';

const runs = Number(process.argv[2] ?? 5);
const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? '.data/bench');
const db = await startEmbeddedPostgres({ dataDir });
const orm = await createOrm(db.url);
const pool = new pg.Pool({ connectionString: db.url, max: 4 });
// Idle connections end with the database at the end.
pool.on('error', () => {});
try {
  await migrate(orm);
  const conn = orm.em.getConnection();
  let [siteId, day] = process.argv.slice(3);
  if (!siteId || !day) {
    const [busiest] = await conn.execute<{ site_id: string; day: string; n: string }[]>(
      `select site_id::text, to_char(day, 'YYYY-MM-DD') as day, count(*) as n from pageviews
        group by 1, 2 order by 3 desc limit 1`,
      [],
      'all',
    );
    if (!busiest) throw new Error('no pageviews in this database');
    siteId = busiest.site_id;
    day = busiest.day;
  }
  const sd = { siteId, timezone: 'UTC', day };
  const src = await siteDaySource(orm, sd);
  const [count] = await conn.execute<{ n: string }[]>(
    'select count(*) as n from pageviews where site_id = ? and day = ?',
    [siteId, day],
    'all',
  );
  console.log(`site ${siteId}, day ${day}: ${Number(count?.n).toLocaleString('en')} pageviews; ${runs} runs each, alternating`);

  const copyOut = pooledCopyOut(pool);
  /** A COPY read to its end without parsing: its bytes, kept to be tallied later. */
  const drain = async (sql: string) => {
    const chunks: Buffer[] = [];
    for await (const c of await copyOut(sql)) chunks.push(c);
    return chunks;
  };
  const timings: Record<string, number[]> = {};
  const note = (name: string, value: number) => {
    timings[name] = [...(timings[name] ?? []), value];
  };
  const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const cpu = process.cpuUsage();
    const out = await fn();
    note(name, performance.now() - t);
    const used = process.cpuUsage(cpu);
    note(`  (this process's CPU ms)  ${name}`, (used.user + used.system) / 1000);
    return out;
  };
  /** The job counting the whole day: without its snapshot the day's record starts no delta (rollup-delta.ts). */
  const wholeDayJob = async () => {
    await conn.execute('update rollup_days set snapshot = null where site_id = ? and day = ?', [siteId, day], 'run');
    return time('rollupSiteDay (the job)', () => rollupSiteDay(orm, sd));
  };
  if (process.env.ROLLUP_DAY_STAGES === 'step') {
    // =step: the bench's quarter-hour step of the busiest hour (rolled up whole to 20:45 first, untimed).
    const step = await timeIncrementalRollup(orm, siteId, day, 20.75, 21, runs);
    console.log(`rollup step 20:45 → 21:00: p50 ${step.latency.p50.toFixed(1)} ms, ${step.recounted} visitors recounted`);
  }
  const stages = process.env.ROLLUP_DAY_STAGES !== '0';
  // ROLLUP_DAY_STAGES=tally: only the process's share, the streams read once (for node --cpu-prof).
  const tallyOnly = process.env.ROLLUP_DAY_STAGES === 'tally';
  const jobOnly = process.env.ROLLUP_DAY_STAGES === 'job';
  let held: { sql: string; chunks: Buffer[] }[] = [];
  /** The tallies over the held bytes, one stream after another (the process's share). */
  const tallies = () =>
    time('stage: tallies over held bytes', () =>
      tallySiteDay(
        src,
        async (sql) => {
          const h = held.find((x) => x.sql === sql);
          if (!h) throw new Error('a stream not held');
          return Object.assign(
            (async function* () {
              yield* h.chunks;
            })(),
            { abandon() {} },
          );
        },
        held.length,
      ),
    );
  for (let i = 0; i <= (process.env.ROLLUP_DAY_STAGES === 'step' ? -1 : runs); i++) {
    const round = async () => {
      if (tallyOnly && held.length) return tallies();
      // =job: the job's runs back to back (as the bench times them: its connections stay warm), baselines after.
      if (jobOnly && i < runs) return wholeDayJob();
      await time('baseline: count(*) of the day', () =>
        conn.execute('select count(*) from pageviews where site_id = ? and day = ?', [siteId, day], 'all'),
      );
      await time('baseline: COPY of the day (all columns)', () =>
        drain(`copy (select * from pageviews where site_id = '${siteId}' and day = '${day}') to stdout`),
      );
      if (jobOnly) return;
      await wholeDayJob();
      if (!stages) return;
      await time('stage: tallySiteDay streamed, this thread', () => tallySiteDay(src, copyOut, 2));
      await time('stage: tallySiteDay streamed, new connections', async () => {
        const fresh = new pg.Pool({ connectionString: db.url, max: 3 });
        try {
          return await tallySiteDay(src, pooledCopyOut(fresh), 2);
        } finally {
          await fresh.end();
        }
      });
      if (process.env.ROLLUP_DAY_STAGES === 'thread') return;
      // The streams as the rollup sends them (two at once), each read to its end into memory.
      held = [];
      await time('stage: COPY streams, unparsed', () =>
        tallySiteDay(
          src,
          async (sql) => {
            const chunks = await drain(sql);
            held.push({ sql, chunks });
            return Object.assign((async function* () {})(), { abandon() {} });
          },
          2,
        ),
      );
      const bytes = held.reduce((s, h) => s + h.chunks.reduce((a, c) => a + c.length, 0), 0);
      note('  (MB streamed)', bytes / 1e6);
      const rows = await tallies();
      // The rows written where none were stored (a day's first count: deleted first, untimed), then over the
      // same rows (a day counted again: the write leaves them).
      for (const stored of ['none', 'the same'] as const) {
        if (stored === 'none') {
          await conn.execute('delete from daily_rollups where site_id = ? and day = ?', [siteId, day], 'run');
        }
        await time(`stage: write the rows, ${stored} stored`, async () => {
          const client = await pool.connect();
          try {
            await client.query('begin; set local synchronous_commit = off');
            await replaceSiteDayRollup(
              async (sql, params) => (await client.query(sql, params as unknown[])).rows,
              siteId,
              day,
              rows,
              { until: null, properties: src.keptProperties, timezone: 'UTC' },
            );
            await client.query('commit');
          } finally {
            client.release();
          }
        });
      }
      note('  (rollup rows)', rows.length);
    };
    await round();
    // The first round warms up (not counted).
    if (i === 0) for (const k of Object.keys(timings)) timings[k] = [];
  }
  // Left as the job would leave it.
  await rollupSiteDay(orm, sd);
  for (const [name, ms] of Object.entries(timings)) {
    if (!ms.length) continue;
    const s = [...ms].sort((a, b) => a - b);
    const p50 = s[Math.floor((s.length - 1) / 2)] as number;
    console.log(
      `${name.padEnd(42)} p50 ${p50.toFixed(1).padStart(8)}   min ${(s[0] as number).toFixed(1).padStart(8)}   max ${(s[s.length - 1] as number).toFixed(1).padStart(8)}   all ${ms.map((m) => m.toFixed(0)).join(' ')}`,
    );
  }
} finally {
  await stopRollupThreads();
  await pool.end();
  await orm.close();
  await db.stop();
}
