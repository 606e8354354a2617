import { insertRows, type PageviewRow, pageviewRow } from '@us/db';
import { addDays, localToday } from '../../src/analytics/range.ts';
import { createToken, createUser, startTestServer, type TestServer } from './server.ts';
import { createSite } from './sites.ts';

export interface StatsFixture {
  t: TestServer;
  auth: string;
  workspaceId: string;
  userId: string;
  /** A new site of the fixture's workspace. */
  site(opts?: { timezone?: string; settings?: Record<string, unknown> }): Promise<string>;
  /** GET with query parameters and the token. */
  get(path: string, query?: Record<string, string | number | boolean>): ReturnType<TestServer['request']['get']>;
  post(path: string, body: unknown): ReturnType<TestServer['request']['post']>;
  close(): Promise<void>;
}

/** A server (`server`: its options), an owner and an analytics:read token; sites are made per test so files never clash. */
export async function statsFixture(server: Parameters<typeof startTestServer>[0] = {}): Promise<StatsFixture> {
  const t = await startTestServer(server);
  const { user, workspace } = await createUser(t.deps);
  const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['analytics:read'] });
  const auth = `Bearer ${token}`;
  return {
    t,
    auth,
    workspaceId: workspace.id,
    userId: user.id,
    async site(opts = {}) {
      const em = t.deps.orm.em.fork();
      const site = (
        await createSite(em, {
          workspace: workspace.id,
          name: 'Stats site',
          timezone: opts.timezone ?? 'UTC',
          settings: opts.settings ?? {},
          ciphers: t.deps.ciphers,
        })
      ).site;
      await em.flush();
      return site.id;
    },
    get(path, query = {}) {
      return t.request
        .get(path)
        .query(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])))
        .set('Authorization', auth);
    },
    post(path, body) {
      return t.request
        .post(path)
        .set('Authorization', auth)
        .send(body as object);
    },
    close: () => t.close(),
  };
}

/** The stats suites' pageview: the shared factory's, from Germany (country DE); `at` is required. */
export const pv = (siteId: string, at: Date, extra: Partial<PageviewRow> = {}): PageviewRow =>
  pageviewRow(siteId, at, { country: 'DE', ...extra });

/** Local day `n` days before today in the zone. */
export const dayAgo = (timezone: string, n: number) => addDays(localToday(timezone), -n);

/** An instant at local-ish noon UTC of a UTC day (safe for UTC sites). */
export const noonUtc = (day: string, hour = 12) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00Z`);

export interface RollupRow {
  day: string;
  metricSet: string;
  dimension?: string;
  value?: string;
  lane?: string;
  count: number;
  visitors?: number;
}

export async function insertRollups(t: TestServer, siteId: string, rows: RollupRow[]) {
  const em = t.deps.orm.em.fork();
  for (const r of rows) {
    await em.execute(
      'insert into daily_rollups (site_id, day, metric_set, dimension, value, lane, count, visitors) values (?, ?, ?, ?, ?, ?, ?, ?)',
      [siteId, r.day, r.metricSet, r.dimension ?? '', r.value ?? '', r.lane ?? 'human', r.count, r.visitors ?? 0],
    );
  }
}

export { insertRows };
