// The per-day store of the results and journeys routes gives exactly what the raw statements give:
// traffic over many days (a site in Tokyo, so local days cut UTC days), bot windows, clicks, exposures,
// off pages, small groups; every route asked with the store and raw-only, then a goal added after the
// traffic, then late rows for a stored day, then today's rows as they keep arriving. Funnels too, with and
// without a filter.
import type { EntityManager } from '@mikro-orm/postgresql';
import { insertRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 as rng } from '../../../scripts/seed/random.ts';
import { LIVE_LAG_SECONDS, recountsSettled, recountsStartedSoFar } from '../../../src/analytics/day-store/gather.ts';
import { arrivalsOf } from '../../../src/analytics/day-store/store.ts';
import { addDays } from '../../../src/analytics/range.ts';
import { siteCtx } from '../../../src/analytics/site-ctx.ts';
import { funnelResultsOf } from '../../../src/features/funnels/index.ts';
import { journeysOf } from '../../../src/features/journeys/service.ts';
import { experimentResultsOf } from '../../../src/features/results/experiment-results.ts';
import { goalResultsOf } from '../../../src/features/results/goal-results.ts';
import { readSettings } from '../../../src/features/sites/settings-values.ts';
import { runResultDays } from '../../../src/jobs/result-days.ts';
import { addSessions, emptyRows, insertJourneys } from '../../support/journeys-fixture.ts';
import { type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

const TZ = 'Asia/Tokyo';
const GOALS = [
  { id: 'signed-up', name: 'Signed up', type: 'event', match: 'signup' },
  { id: 'blog', name: 'Blog', type: 'path', match: '/blog/*' },
];
const EXPERIMENTS = [{ key: 'pricing', name: 'Pricing', variants: ['a', 'b'], status: 'running' }];

const utcToday = () => new Date().toISOString().slice(0, 10);
// Saved in beforeAll, so the result days job keeps it stored too.
const FUNNEL = {
  id: '00000000-0000-4000-8000-0000000f0001',
  name: 'Blog to pricing',
  steps: [
    { type: 'page' as const, match: '/blog/*' },
    { type: 'page' as const, match: '/pricing' },
  ],
  createdAt: new Date().toISOString(),
};

describe('the per-day store answers as the raw rows', () => {
  let f: StatsFixture;
  let siteId: string;
  // A bot window over one afternoon ten days ago (Germany): human rows there count as bot.
  const windowDay = addDays(utcToday(), -10);
  const settings = () => ({
    goals: GOALS,
    experiments: EXPERIMENTS,
    botWindows: [{ from: `${windowDay}T10:00:00Z`, to: `${windowDay}T16:00:00Z`, country: 'DE' }],
  });

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site({ timezone: TZ, settings: settings() });
    const r = rng(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
    const paths = ['/', '/blog/a', '/blog/b', '/pricing', '/docs/x', '/shop', `/rare-${Math.floor(r() * 1000)}`];
    const rows = emptyRows();
    for (let back = 0; back <= 20; back++) {
      const day = addDays(utcToday(), -back);
      for (let s = 0; s < 40; s++) {
        const pages = Array.from({ length: 1 + Math.floor(r() * 4) }, () => ({
          path: r() < 0.05 ? `/rare-${Math.floor(r() * 1e6)}` : pick(paths),
          off: r() < 0.05,
          clicks: r() < 0.4 ? [pick(['/pricing', 'button:Buy', 'out:docs.example'])] : [],
          events: r() < 0.2 ? ['signup'] : [],
          exposures: r() < 0.3 ? ([['pricing', pick(['a', 'b', 'c'])]] as [string, string][]) : [],
        }));
        // Offsets from noon UTC: -11.9 h to +11.9 h, so sessions cross Tokyo's midnight (15:00 UTC).
        const offset = Math.floor((r() * 2 - 1) * 42_800);
        const visitor = r() < 0.2 ? `again-${back}-${s % 3}` : undefined;
        addSessions(rows, siteId, { day, pages, offset, ...(visitor ? { visitor } : {}) });
      }
    }
    await insertJourneys(f.t.deps.orm, rows);
    await f.t.deps.orm.em
      .getConnection()
      .execute('insert into funnels (id, site_id, name, steps) values (?, ?, ?, ?::jsonb)', [
        FUNNEL.id,
        siteId,
        FUNNEL.name,
        JSON.stringify(FUNNEL.steps),
      ]);
  });
  afterAll(() => f.close());

  /** The site's settings as stored now, and a stats context for them (on a new fork, or on the manager `on`). */
  async function current() {
    const em = f.t.deps.orm.em.fork();
    const [site] = await em
      .getConnection()
      .execute<{ settings: Record<string, unknown> }[]>('select settings from sites where id = ?', [siteId]);
    const settings = site?.settings ?? {};
    const ctx = (on: EntityManager = f.t.deps.statsOrm.em.fork()) => siteCtx(on, { id: siteId, timezone: TZ, settings });
    return { em, settings, ctx };
  }

  async function both<T>(ask: (ctx: ReturnType<typeof siteCtx>, s: Record<string, unknown>, store: boolean) => Promise<T>) {
    const { settings: s, ctx } = await current();
    const raw = await ask(ctx(), s, false);
    const first = await ask(ctx(), s, true); // computes and stores the missing days
    const again = await ask(ctx(), s, true); // reads them
    return { raw, first, again };
  }

  const spanSpecs = async () =>
    (
      await f.t.deps.orm.em
        .getConnection()
        .execute<{ spec: string }[]>(`select spec from result_days where site_id = ? and kind = 'journeys-span'`, [siteId])
    ).map((r) => r.spec);

  async function expectSame() {
    for (const days of [1, 5, 14, 21]) {
      const g = await both((ctx, s, store) => goalResultsOf(ctx, readSettings(s), { id: siteId, days }, { store }));
      expect(g.first).toEqual(g.raw);
      expect(g.again).toEqual(g.raw);
      for (const goal of [undefined, 'blog']) {
        const e = await both((ctx, s, store) =>
          experimentResultsOf(ctx, readSettings(s), { id: siteId, key: 'pricing', days, ...(goal ? { goal } : {}) }, { store }),
        );
        expect(e.first).toEqual(e.raw);
        expect(e.again).toEqual(e.raw);
      }
      for (const zoom of ['section', 'page', 'element'] as const) {
        const j = await both((ctx, s, store) => journeysOf(ctx, s, { id: siteId, days, zoom }, { store }));
        expect(j.first).toEqual(j.raw);
        expect(j.again).toEqual(j.raw);
      }
      const wheres: Record<string, string>[] = [{}, { page: '/blog/a' }];
      for (const where of wheres) {
        const fu = await both((ctx, _s, store) => funnelResultsOf(ctx, FUNNEL, days, where, { store }));
        expect(fu.first).toEqual(fu.raw);
        expect(fu.again).toEqual(fu.raw);
      }
    }
    // Not vacuous: the funnel has figures past its first step over three weeks.
    const wide = await both((ctx, _s, store) => funnelResultsOf(ctx, FUNNEL, 21, {}, { store }));
    expect(wide.raw.steps[1]?.medianSeconds).toBeGreaterThan(0);
  }

  it('gives the same goal, experiment and journeys answers from stored days as from raw rows', async () => {
    await expectSame();
    const [row] = await f.t.deps.orm.em
      .getConnection()
      .execute<{ n: string }[]>('select count(*) as n from result_days where site_id = ?', [siteId]);
    expect(Number(row?.n)).toBeGreaterThan(0);
    // The ranges of 14 and 21 days read their older days of journeys as one summed span: one per zoom and range.
    const spans = await f.t.deps.orm.em
      .getConnection()
      .execute<{ n: string }[]>(
        `select count(distinct spec) as n from result_days where site_id = ? and kind = 'journeys-span'`,
        [siteId],
      );
    expect(Number(spans[0]?.n)).toBe(6);
  });

  it('reads stored days a batch at a time as it reads them at once, spans built from batches included', async () => {
    await f.t.deps.orm.em.getConnection().execute(`delete from result_days where site_id = ? and kind like '%-span'`, [siteId]);
    const oneAtATime = { readBatchBytes: 1 };
    for (const days of [5, 21]) {
      for (const zoom of ['section', 'page'] as const) {
        const j = await both((ctx, s, store) => journeysOf(ctx, s, { id: siteId, days, zoom }, { store, ...oneAtATime }));
        expect(j.first).toEqual(j.raw);
        expect(j.again).toEqual(j.raw);
      }
      const g = await both((ctx, s, store) =>
        goalResultsOf(ctx, readSettings(s), { id: siteId, days }, { store, ...oneAtATime }),
      );
      expect(g.again).toEqual(g.raw);
    }
    expect((await spanSpecs()).length).toBe(2);
  });

  it('computes a stored day that was deleted between its header read and its rows read, and stores it again', async () => {
    const { em, settings, ctx } = await current();
    const s = readSettings(settings);
    const days = 14;
    const ask = (on: ReturnType<typeof siteCtx>, store: boolean) =>
      goalResultsOf(on, s, { id: siteId, days }, { store, readBatchBytes: 1 });
    const raw = await ask(ctx(), false);
    await ask(ctx(), true);
    const storedEntries = async () =>
      (
        await em
          .getConnection()
          .execute<{ spec: string; day: string }[]>(
            `select spec, to_char(day, 'YYYY-MM-DD') as day from result_days where site_id = ? order by 1, 2`,
            [siteId],
          )
      ).map((r) => `${r.spec} ${r.day}`);
    const before = await storedEntries();
    // Every other rows read (one entry each: readBatchBytes 1) finds its entry deleted just before it runs,
    // as when rows arrive for the day and another node deletes the entry between the two reads.
    const statsEm = f.t.deps.statsOrm.em.fork();
    const conn = statsEm.getConnection();
    const deleted: string[] = [];
    let reads = 0;
    const racing = new Proxy(conn, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key !== 'execute') return typeof value === 'function' ? value.bind(target) : value;
        return async (sql: string, params: unknown[], ...rest: unknown[]) => {
          if (/r\.rows\s+from result_days/.test(sql) && reads++ % 2 === 0) {
            for (const w of JSON.parse(params[0] as string) as { spec: string; day: string }[]) {
              await em
                .getConnection()
                .execute('delete from result_days where site_id = ? and spec = ? and day = ?', [siteId, w.spec, w.day]);
              deleted.push(`${w.spec} ${w.day}`);
            }
          }
          return (target.execute as (...a: unknown[]) => unknown)(sql, params, ...rest);
        };
      },
    });
    const racingEm = new Proxy(statsEm, {
      get(target, key) {
        if (key === 'getConnection') return () => racing;
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const answer = await ask(ctx(racingEm), true);
    expect(deleted.length).toBeGreaterThan(1);
    expect(answer).toEqual(raw);
    // The deleted entries were computed and stored again.
    expect(await storedEntries()).toEqual(before);
  });

  it('counts old sessions for a goal added after the traffic', async () => {
    const next = { ...settings(), goals: [...GOALS, { id: 'pricing', name: 'Pricing', type: 'path', match: '/pricing' }] };
    await f.t.deps.orm.em
      .getConnection()
      .execute('update sites set settings = ?::jsonb where id = ?', [JSON.stringify(next), siteId]);
    await expectSame();
  });

  it('the job fills the store, and recomputes a stored day that got late rows', async () => {
    const before = await spanSpecs();
    await f.t.deps.orm.em.getConnection().execute(`delete from result_days where site_id = ? and kind = 'funnel'`, [siteId]);
    const run = await runResultDays(f.t.deps.orm, { siteIds: [siteId], wait: true });
    expect(run).toMatchObject({ ran: true, sites: 1, failed: 0 });
    // The saved funnel's days up to yesterday are stored (without filters: one spec per day).
    const [funnelDays] = await f.t.deps.orm.em
      .getConnection()
      .execute<{ n: string }[]>(`select count(*) as n from result_days where site_id = ? and kind = 'funnel'`, [siteId]);
    expect(Number(funnelDays?.n)).toBeGreaterThanOrEqual(20);
    // It also built the spans a 30-day journeys ask reads (one per zoom), so such asks build none.
    const warmed = await spanSpecs();
    expect(warmed.length).toBe(before.length + 3);
    for (const zoom of ['section', 'page', 'element'] as const) {
      const j = await both((ctx, s, store) => journeysOf(ctx, s, { id: siteId, days: 30, zoom }, { store }));
      expect(j.first).toEqual(j.raw);
    }
    expect((await spanSpecs()).sort()).toEqual(warmed.sort());
    const late = addDays(utcToday(), -4);
    await insertJourneys(
      f.t.deps.orm,
      addSessions(emptyRows(), siteId, { day: late, pages: [{ path: '/blog/late', events: ['signup'] }] }, 6),
    );
    const again = await runResultDays(f.t.deps.orm, { siteIds: [siteId], wait: true });
    expect(again.stale).toBeGreaterThan(0);
    await expectSame();
  });

  // Today, still receiving rows, is always behind its stored answer: deleting it every run made every ask of a busy
  // site count today again while it waited, where a large live day is served as stored and counted in the background.
  it("the job leaves today's stored days to the asks: rows arriving today do not delete them", async () => {
    const db = f.t.deps.orm.em.getConnection();
    const today = utcToday();
    await db.execute(
      `insert into result_days (site_id, kind, spec, day, rows, seen) values (?, 'goal', 'today-probe', ?::date, '[]'::jsonb, 1)
         on conflict (site_id, kind, spec, day) do update set seen = 1`,
      [siteId, today],
    );
    await db.execute(
      `insert into day_arrivals (site_id, day, rows) values (?, ?::date, 60000)
         on conflict (site_id, day) do update set rows = day_arrivals.rows + 60000`,
      [siteId, today],
    );
    try {
      await runResultDays(f.t.deps.orm, { siteIds: [siteId], wait: true });
      const [kept] = await db.execute<{ n: string }[]>(
        `select count(*) as n from result_days where site_id = ? and spec = 'today-probe' and day = ?::date`,
        [siteId, today],
      );
      expect(Number(kept?.n)).toBe(1);
    } finally {
      await db.execute(`delete from result_days where site_id = ? and spec = 'today-probe'`, [siteId]);
      await db.execute('update day_arrivals set rows = rows - 60000 where site_id = ? and day = ?::date', [siteId, today]);
    }
  });

  // A site whose stored days all go at once (its goals or experiments changed: 30 days of each part) held the job,
  // and the rollup run waiting for it, for as long as it took: hours on a large site.
  it('gives a site its share of a run: past it, what was stored stays and the next run goes on', async () => {
    const funnelDays = async () =>
      Number(
        (
          await f.t.deps.orm.em
            .getConnection()
            .execute<{ n: string }[]>(`select count(*) as n from result_days where site_id = ? and kind = 'funnel'`, [siteId])
        )[0]?.n,
      );
    await f.t.deps.orm.em.getConnection().execute(`delete from result_days where site_id = ? and kind = 'funnel'`, [siteId]);
    const opts = { siteIds: [siteId], wait: true, siteMs: 0 };
    const first = await runResultDays(f.t.deps.orm, opts);
    expect(first).toMatchObject({ ran: true, sites: 0, unfinished: 1, failed: 0 });
    expect(await funnelDays()).toBeGreaterThan(0);
    let run = first;
    for (let runs = 1; run.unfinished > 0; runs++) {
      expect(runs).toBeLessThan(100);
      run = await runResultDays(f.t.deps.orm, opts);
    }
    expect(run).toMatchObject({ sites: 1, unfinished: 0, failed: 0 });
    expect(await funnelDays()).toBeGreaterThanOrEqual(20);
    await expectSame();
  });

  it('counts each inserted row once in the day’s arrivals version, a retried batch adding nothing', async () => {
    const em = f.t.deps.orm.em.fork();
    const day = utcToday();
    const before = (await arrivalsOf(em, siteId, [day])).get(day) ?? 0;
    const rows = addSessions(emptyRows(), siteId, { day, pages: [{ path: '/counted', events: ['signup'] }] }, 2);
    await insertJourneys(f.t.deps.orm, rows);
    const added = rows.pageviews.length + rows.events.length;
    expect((await arrivalsOf(em, siteId, [day])).get(day)).toBe(before + added);
    // The same rows again (a flusher's retry): the conflict clause skips them, the version stays.
    await insertRows(f.t.deps.orm, 'pageviews', rows.pageviews);
    expect((await arrivalsOf(em, siteId, [day])).get(day)).toBe(before + added);
  });

  it('answers today from the store, with rows that arrive after it was stored', async () => {
    await expectSame();
    await insertJourneys(
      f.t.deps.orm,
      addSessions(emptyRows(), siteId, { day: utcToday(), pages: [{ path: '/blog/now', events: ['signup'] }] }, 7),
    );
    await expectSame();
  });

  it('uses a large live day’s stored figures for a minute, then counts the rows that arrived since', async () => {
    const { em, settings, ctx } = await current();
    const s = readSettings(settings);
    // Every day counts as large here (a real one has 50,000 rows or more). Yesterday (UTC) lies wholly
    // inside Tokyo's last three days at any hour, so it is a stored day.
    const ask = (store: boolean) => goalResultsOf(ctx(), s, { id: siteId, days: 3 }, { store, liveDayRows: 1 });
    const stored = await ask(true);
    await insertJourneys(
      f.t.deps.orm,
      addSessions(emptyRows(), siteId, { day: addDays(utcToday(), -1), pages: [{ path: '/blog/live', events: ['signup'] }] }, 5),
    );
    const raw = await ask(false);
    expect(raw.visits).toBeGreaterThan(stored.visits ?? 0);
    // Within the minute: the stored figures, without the new sessions.
    expect(await ask(true)).toEqual(stored);
    // A minute later the stored figures are still answered, once more, while the day is counted again
    // in the background; the next ask has the new sessions.
    await em
      .getConnection()
      .execute(`update result_days set computed_at = now() - make_interval(secs => ?) where site_id = ?`, [
        LIVE_LAG_SECONDS + 1,
        siteId,
      ]);
    expect(await ask(true)).toEqual(stored);
    await recountsSettled();
    expect(await ask(true)).toEqual(raw);
  });

  // The attack: asks that each want large live days counted again (one per filter value tried: each its own
  // stored part) started a background statement per day and part, after their answers had left the workspace's
  // slot: enough of them filled the stats pool for every tenant.
  it('counts one large live day of a site again at a time, in the background', async () => {
    const { em, settings, ctx } = await current();
    const s = readSettings(settings);
    const ask = () => goalResultsOf(ctx(), s, { id: siteId, days: 3 }, { store: true, liveDayRows: 1 });
    await ask();
    await recountsSettled();
    const liveDays = [0, 1, 2].map((n) => addDays(utcToday(), -n));
    for (const day of liveDays) {
      await insertJourneys(
        f.t.deps.orm,
        addSessions(emptyRows(), siteId, { day, pages: [{ path: '/blog/again', events: ['signup'] }] }, 2),
      );
    }
    await em
      .getConnection()
      .execute(`update result_days set computed_at = now() - make_interval(secs => ?) where site_id = ?`, [
        LIVE_LAG_SECONDS + 1,
        siteId,
      ]);
    // Three large live days are due: the ask starts one recount (whether it has ended by now or not).
    const before = recountsStartedSoFar();
    await ask();
    expect(recountsStartedSoFar() - before).toBe(1);
    await recountsSettled();
    // The next asks start the others, one at a time.
    await ask();
    expect(recountsStartedSoFar() - before).toBe(2);
    await recountsSettled();
  });
});
