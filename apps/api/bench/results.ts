// Goal and experiment results over the stats bench site: the generator's traffic already carries what
// they read (signup and purchase events, /blog/* articles, pricing exposures a/b where b signs up more),
// so the bench gives the site goals, the experiment matching it and a funnel, then times the routes over 30 days.
import { randomUUID } from 'node:crypto';
import { type EventRow, eventOf, insertRows, type Orm, type PageviewRow, pageviewRow } from '@us/db';
import { runResultDays } from '../src/jobs/index.ts';

export const RESULTS_GOALS = [
  { id: 'signed-up', name: 'Signed up', type: 'event', match: 'signup' },
  { id: 'purchase', name: 'Purchase', type: 'event', match: 'purchase' },
  { id: 'blog', name: 'Blog', type: 'path', match: '/blog/*' },
];

export const RESULTS_EXPERIMENTS = [{ key: 'pricing', name: 'Pricing page', variants: ['a', 'b'], status: 'running' }];

/** A funnel over the generated traffic: the home page, the pricing page, a signup. */
export const RESULTS_FUNNEL = {
  id: '00000000-0000-4000-8000-00000000f001',
  name: 'Signup',
  steps: [
    { type: 'page', match: '/' },
    { type: 'page', match: '/pricing' },
    { type: 'event', match: 'signup' },
  ],
};

/** Sets the bench site's goals and experiments and saves its funnel (the generated rows are untouched). */
export async function prepareResultsSite(orm: Orm, siteId: string): Promise<void> {
  const conn = orm.em.getConnection();
  await conn.execute(
    `update sites set settings = coalesce(settings, '{}'::jsonb) || jsonb_build_object('goals', ?::jsonb, 'experiments', ?::jsonb) where id = ?`,
    [JSON.stringify(RESULTS_GOALS), JSON.stringify(RESULTS_EXPERIMENTS), siteId],
    'run',
  );
  await conn.execute(
    `insert into funnels (id, site_id, name, steps) values (?, ?, ?, ?::jsonb)
     on conflict (id) do update set steps = excluded.steps`,
    [RESULTS_FUNNEL.id, siteId, RESULTS_FUNNEL.name, JSON.stringify(RESULTS_FUNNEL.steps)],
    'run',
  );
}

/** The timed routes: name and path. */
export function resultsRoutes(siteId: string, days: number): [string, string][] {
  return [
    [`  GET goals/results?days=${days}`, `/v1/sites/${siteId}/goals/results?days=${days}`],
    [`  GET experiments/pricing/results`, `/v1/sites/${siteId}/experiments/pricing/results?days=${days}`],
    [`  GET funnels/{signup}/results?days=${days}`, `/v1/sites/${siteId}/funnels/${RESULTS_FUNNEL.id}/results?days=${days}`],
  ];
}

/**
 * Runs the per-day store's job (what the API's scheduler does after each rollup run) for the bench site,
 * so the days up to yesterday of its goals, experiment and journeys zooms are stored before anything is timed,
 * and prints how long that took (long only on the first run after the settings or the data changed).
 */
export async function fillResultDays(orm: Orm, siteId: string): Promise<void> {
  const started = Date.now();
  const run = await runResultDays(orm, { siteIds: [siteId], wait: true });
  const s = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `  (result-days job: ${s} s to store the days up to yesterday${run.failed ? `, ${run.failed} sites failed!` : ''})`,
  );
}

/**
 * Traffic arriving while the results and journeys routes are timed, at the bench site's own pace (about
 * 330,000 pageviews a day, so 4 a second, with a signup now and then): today's figures keep changing, as
 * on a live site, and the per-day store has to tell current days from outdated ones. Returns a stop.
 */
export function startLiveTraffic(orm: Orm, siteId: string): () => Promise<number> {
  const paths = ['/', '/pricing', '/blog/live-post', '/docs/start', '/products'];
  let inserted = 0;
  let n = 0;
  const tick = async () => {
    const pageviews: PageviewRow[] = [];
    const events: EventRow[] = [];
    for (let k = 0; k < 4; k++) {
      n++;
      const pageview = pageviewRow(siteId, new Date(), {
        pageviewId: `live-${randomUUID()}`,
        visitor: `live-${n >> 2}`,
        sessionStart: n % 4 === 0,
        path: paths[n % paths.length] as string,
        country: 'DE',
      });
      pageviews.push(pageview);
      if (n % 20 === 0) events.push(eventOf(pageview, { name: 'signup' }));
    }
    inserted += await insertRows(orm, 'pageviews', pageviews);
    if (events.length) inserted += await insertRows(orm, 'events', events);
  };
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(tick).catch(() => {});
  }, 1000);
  return async () => {
    clearInterval(timer);
    await running;
    return inserted;
  };
}
