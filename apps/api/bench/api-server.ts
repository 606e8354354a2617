// The real service (embedded PostgreSQL in the bench DATA_DIR, default .data/bench, kept between runs;
// in-process hot state) plus a signed-up user, an API token and a site for collect reports, announced
// on stdout for the benchmark driver together with the database URL. Over the IPC channel the driver
// opens (child.ts) it answers bench-only controls (`memory`, `rss`, `flush`, `rollup-collect`…): no route of the product.
import { writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { scopesOfRole } from '@us/shared';
import { ensureAccount, ensureSite } from '../scripts/seed/accounts.ts';
import { deleteTraffic } from '../scripts/seed/generate.ts';
import { rollupThreadHeaps } from '../src/analytics/rollup/rollup-thread.ts';
import { start } from '../src/boot.ts';
import { parseEnv } from '../src/core/env.ts';
import { releaseAfterWork, releaseMemory } from '../src/core/heap-release.ts';
import { keptFillsPending, keptFillsSettled } from '../src/features/stats/kept-days.ts';
import { issueToken } from '../src/features/tokens/issue.ts';
import { rollupSiteDay, runResultDays, runRollups, runTodayRollups } from '../src/jobs/index.ts';
import type { ChildReply } from './child.ts';
import { watchGcPauses } from './gc-pauses.ts';

export interface ApiInfo {
  url: string;
  token: string;
  dbUrl: string;
  workspaceId: string;
  collect: { siteId: string; publicKey: string; hostname: string };
}

const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? '.data/bench');
// Budgets far above any bench rate, so the figures measure the work, not the refusals (the collect
// budgets are read once the collector has them; until then these two are ignored).
const unlimited = '100000000';
const running = await start(
  parseEnv({
    PORT: '0',
    DATA_DIR: dataDir,
    // A second bench API (an A/B of two versions side by side) shares the first one's database.
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    LOG_LEVEL: 'error',
    // Not JSON: the driver takes the first line starting with `{` on stdout for this process's info.
    LOG_FORMAT: 'readable',
    NODE_ENV: 'production',
    MCP_CALLS_PER_MINUTE: unlimited,
    REST_CALLS_PER_MINUTE: unlimited,
    COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: unlimited,
    COLLECT_REPORTS_PER_SITE_PER_MINUTE: unlimited,
    // The proxy section's origin is the bench's bare http server on 127.0.0.1.
    PROXY_PRIVATE_ORIGINS: 'true',
    // What a run may tune, as the service reads it (unset: the service's default).
    STATS_POOL_SIZE: process.env.STATS_POOL_SIZE,
    POSTGRES_SETTINGS_FILE: process.env.POSTGRES_SETTINGS_FILE,
  }),
);
const em = running.deps.orm.em.fork();
const { user, workspace } = await ensureAccount(em, {
  email: 'bench@example.test',
  password: 'bench-password-123',
  workspaceName: 'Bench',
});
const hostname = 'collect.bench.example';
const site = await ensureSite(em, { workspaceId: workspace.id, name: 'Collect bench', hostname, timezone: 'UTC' });
// The collect site starts empty each run: its day would otherwise grow by every earlier run's reports
// (docs/performance/history.md, "Two stalls of the collect path found with the rounds"), and each run's quarter-hour
// rollups and index inserts with it.
await deleteTraffic(running.deps.orm, site.site.id);
// Let the start-up rollup run (complete days of earlier bench data not rolled up yet) finish before
// anything is measured, so it does not run beside the benchmarks.
const rollupStart = Date.now();
for (;;) {
  const run = await runRollups(running.deps.orm).catch(() => null);
  if (!run || (run.ran && !run.more)) break;
  await new Promise((r) => setTimeout(r, 500));
}
// The scheduler's start-up run goes on with the per-day store of results and journeys: wait for it too
// (taking its lock after it), so its work does not land inside a measurement.
await runResultDays(running.deps.orm, { wait: true }).catch(() => null);
// And for today's rollup up to the last hour boundary (the scheduler's start-up run, or this one).
await runTodayRollups(running.deps.orm, { wait: true }).catch(() => null);
// The scheduler gives memory back after these runs (jobs/scheduler.ts); having taken their locks, its own runs
// found nothing to do, so this process does it in their place.
releaseAfterWork();
if (Date.now() - rollupStart > 2000) {
  process.stderr.write(
    `  (waited ${((Date.now() - rollupStart) / 1000).toFixed(1)} s for the start-up rollup, today's rollup and result-days jobs)\n`,
  );
}
const { secret } = await issueToken(em, {
  workspaceId: workspace.id,
  createdBy: user.id,
  name: 'bench',
  scopes: scopesOfRole('owner'),
});
const info: ApiInfo = {
  url: running.url,
  token: secret,
  dbUrl: String(running.deps.orm.config.get('clientUrl')),
  workspaceId: workspace.id,
  collect: { siteId: site.site.id, publicKey: site.publicKey, hostname },
};
process.stdout.write(`${JSON.stringify(info)}\n`);

const gcPauses = watchGcPauses();
let profiler: inspector.Session | undefined;
const post = (method: string) =>
  new Promise<unknown>((resolve, reject) => profiler?.post(method, (err, res) => (err ? reject(err) : resolve(res))));
/** Where `rollup-step` goes on with each site-day: the hour its last step reached (24: the day was closed). */
const stepsAt = new Map<string, number>();
const STEPS_FROM_HOUR = 12;
const controls: Record<string, (args?: unknown) => Promise<unknown>> = {
  // After a full collection that gives memory back (core/heap-release.ts), so growth means retained memory.
  memory: async () => {
    releaseMemory();
    return process.memoryUsage();
  },
  // Without a GC: what the process holds right now (sampled while an export streams).
  rss: async () => process.memoryUsage(),
  // The rollup threads' own V8 heaps (not in the main thread's heapTotal), added up.
  'rollup-heap': async () => rollupThreadHeaps(),
  // A CPU profile of what the process does from now until `profile-stop` (written to BENCH_PROFILE_DIR
  // or /tmp), for finding where a face's time goes under load: `apps/api/bench/profile.ts`.
  'profile-start': async () => {
    profiler ??= new inspector.Session();
    profiler.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
    return {};
  },
  'profile-stop': async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    profiler?.disconnect();
    const file = path.join(process.env.BENCH_PROFILE_DIR ?? '/tmp', `api-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return { file };
  },
  // Once the questions asked so far have their days kept (features/stats/kept-days.ts): how long that took.
  'kept-settled': async () => {
    const started = performance.now();
    const pending = keptFillsPending();
    await keptFillsSettled();
    return { pending, ms: performance.now() - started };
  },
  // The collections since the last ask (gc-pauses.ts): read around each paced figure.
  'gc-pauses': async () => gcPauses.take(),
  // The next quarter-hour of a site-day's rollup, as today's job keeps a day (rollup-delta.ts), run here in the
  // service's own rollup thread: the first step (and the one after the day closed) rolls the day up to noon,
  // then each step adds a quarter-hour, the last one closes the day (`mixed.ts`).
  'rollup-step': async (args) => {
    const { siteId, day } = args as { siteId: string; day: string };
    const key = `${siteId}/${day}`;
    const at = stepsAt.get(key);
    const to = at === undefined || at >= 24 ? STEPS_FROM_HOUR : at + 0.25;
    const until = to >= 24 ? undefined : new Date(Date.parse(`${day}T00:00:00Z`) + to * 3_600_000);
    await rollupSiteDay(running.deps.orm, { siteId, timezone: 'UTC', day }, until?.toISOString(), { rewind: true });
    stepsAt.set(key, to);
    return { hour: to };
  },
  // The collect site's today rolled up to this moment, in this process's rollup thread, as the quarter-hour
  // job steps a live site's day (memory.ts runs it over and over beside its collect load).
  'rollup-collect': async () =>
    rollupSiteDay(
      running.deps.orm,
      { siteId: site.site.id, timezone: 'UTC', day: new Date().toISOString().slice(0, 10) },
      new Date().toISOString(),
    ),
  // The collect site emptied again (after the memory section's load), so later sections start as a run does.
  'reset-collect': async () => {
    await running.deps.ingest.flushNow();
    return { deleted: await deleteTraffic(running.deps.orm, site.site.id) };
  },
  // Everything acknowledged so far committed to PostgreSQL, so the driver can count it.
  flush: async () => {
    const r = await running.deps.ingest.flushNow();
    if (r.error) throw r.error;
    return { inserted: r.inserted };
  },
};
process.on('message', (m: { id: number; type: string; args?: unknown }) => {
  const reply = (r: Omit<ChildReply, 'id'>) => process.send?.({ id: m.id, ...r });
  const control = controls[m.type];
  if (!control) return reply({ error: `unknown control ${m.type}` });
  control(m.args).then(
    (r) => reply({ reply: r }),
    (e) => reply({ error: String(e) }),
  );
});
let stopping: Promise<void> | null = null;
const stop = () => {
  stopping ??= running.close().then(() => process.exit(0));
  return stopping;
};
process.on('SIGTERM', stop);
// The bench gone (ended by a timeout or a signal that skipped its clean-up): its IPC channel closes, and this
// server stops with its embedded PostgreSQL instead of holding the bench folder.
process.on('disconnect', stop);
