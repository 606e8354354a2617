// What a user sees when a pull goes wrong halfway, against the providers' stand-ins: a Google answer whose
// body cannot be read (cut off, truncated, not JSON) is a failed pull that keeps the true figures, never a
// measurement of nothing and never access withdrawn; a first pull that failed once is made whole by the next
// (twelve weeks, not two), as is one resumed after a stop; and connecting another property (or Bing site)
// leaves none of the old one's weeks, even when its pull was under way.
import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readKey } from '../../../src/features/search/google.ts';
import { runSearchPull } from '../../../src/features/search/search-pull-job.ts';
import { mondayOf } from '../../../src/features/search/weeks.ts';
import { type BrokenBody, type GoogleCall, type SearchProviders, searchTestServer } from '../../support/search-providers.ts';
import { createToken, createUser, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

const dayBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

interface Week {
  week: string;
  source: 'primary' | 'secondary';
  clicks: number | null;
  impressions: number | null;
  pages: number | null;
  queries: number | null;
}

describe('search pulls that go wrong halfway', () => {
  let providers: SearchProviders;
  let t: TestServer;
  let auth: string;
  let workspaceId: string;
  let own: { email: string; keyFile: Record<string, string> };
  let customer: { email: string; keyFile: Record<string, string> };
  const today = new Date().toISOString().slice(0, 10);
  const thisWeek = mondayOf(today);
  const lastWeek = dayBefore(thisWeek, 7);
  const sixWeeksAgo = dayBefore(thisWeek, 42);

  const setup = () => ({
    googleApi: providers.googleUrl,
    bingApi: providers.bingUrl,
    cipher: t.deps.ciphers.search,
    ownKey: readKey(own.keyFile, providers.googleUrl),
  });
  /** The site's connections made due, then pulled. */
  const pull = async (siteId: string) => {
    await t.deps.orm.em
      .fork()
      .getConnection()
      .execute('update search_connections set next_pull_at = null where site_id = ?', [siteId], 'run');
    return runSearchPull(t.deps.orm, setup(), { now: new Date(), siteIds: [siteId], wait: true });
  };
  const weeks = async (siteId: string, source: 'primary' | 'secondary' = 'primary') =>
    (
      (await t.request.get(`/v1/sites/${siteId}/search/weeks`).set('Authorization', auth).expect(200)).body.weeks as Week[]
    ).filter((w) => w.source === source);
  const search = async (siteId: string) =>
    (await t.request.get(`/v1/sites/${siteId}/search`).set('Authorization', auth).expect(200)).body;
  const queriesOf = (property: string) =>
    providers.seen.filter((s) => s === `POST /google/webmasters/v3/sites/${encodeURIComponent(property)}/searchAnalytics/query`)
      .length;

  /** A site with `n` verified hostnames. */
  async function site(n = 1): Promise<{ id: string; hosts: string[] }> {
    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: workspaceId, name: 'Mended' });
    const hosts = Array.from({ length: n }, (_, i) => `mend${i}-${randomBytes(4).toString('hex')}.example.test`);
    for (const hostname of hosts) {
      em.create(SiteHostname, { site, hostname, verifyToken: 'v'.repeat(32), verifiedAt: new Date() });
    }
    await em.flush();
    return { id: site.id, hosts };
  }
  const connect = (siteId: string, body: Record<string, unknown>, which: 'primary' | 'secondary' = 'primary') =>
    t.request.put(`/v1/sites/${siteId}/search/${which}`).set('Authorization', auth).send(body);

  beforeAll(async () => {
    ({ providers, own, t } = await searchTestServer('unseen-mends'));
    customer = providers.serviceAccount('mends-reader');
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    auth = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId, scopes: ['search:read', 'search:write'] })).token}`;
  });
  // What a test asked of Google and did not meet (it failed first) is not left for the next.
  afterEach(() => providers.resetGoogle());
  afterAll(async () => {
    await t?.close();
    await providers?.close();
  });

  describe('a Google answer whose body cannot be read', () => {
    /** A site connected with the customer's key, pulled once with figures for this week and the last. */
    async function pulled(): Promise<{ siteId: string; before: Week[] }> {
      const s = await site();
      const property = `https://${s.hosts[0]}/`;
      providers.grant(customer.email, property);
      providers.googleData(property, [
        { day: today, page: `${property}a`, query: 'one', clicks: 6, impressions: 100, position: 3 },
        { day: today, page: `${property}b`, query: 'two', clicks: 4, impressions: 300, position: 7 },
        { day: lastWeek, page: `${property}a`, query: 'one', clicks: 2, impressions: 50, position: 5 },
      ]);
      await connect(s.id, { mode: 'service_account', property, key: customer.keyFile }).expect(200);
      expect(await pull(s.id)).toMatchObject({ pulled: 1, failed: 0 });
      const before = await weeks(s.id);
      expect(before.find((w) => w.week === lastWeek)).toMatchObject({ clicks: 2, pages: 1, queries: 1 });
      expect(before.find((w) => w.week === thisWeek)).toMatchObject({ clicks: 10, pages: 2, queries: 2 });
      return { siteId: s.id, before };
    }

    it.each<[BrokenBody, GoogleCall, number]>([
      ['cut-off', 'page', 200],
      ['truncated', 'query', 200],
      ['html', 'total', 200],
      ['truncated', 'token', 200],
    ])('a %s body of the %s answer (%i) is a failed pull: the weeks keep their true figures', async (how, at, status) => {
      const { siteId, before } = await pulled();
      providers.breakNextGoogle(how, at, status);
      expect(await pull(siteId)).toMatchObject({ pulled: 0, failed: 1 });
      expect(await weeks(siteId)).toEqual(before);
      const failed = (await search(siteId)).primary;
      expect(failed.lastPull).toMatchObject({ ok: false });
      expect(failed.lastPull.message).toMatch(/^last pull failed: Google answered 200: /);
      // Tried again, it works: nothing was lost.
      expect(await pull(siteId)).toMatchObject({ pulled: 1, failed: 0 });
      expect((await search(siteId)).primary.lastPull).toMatchObject({ ok: true, message: null });
      expect(await weeks(siteId)).toEqual(before);
    });
  });

  describe('a delegated check whose answer cannot be read', () => {
    /** A site connected in delegated mode and pulled once. */
    async function delegated(): Promise<{ siteId: string; property: string }> {
      const s = await site();
      const property = `sc-domain:${s.hosts[0]}`;
      providers.grant(own.email, property);
      providers.googleData(property, [
        { day: today, page: `https://${s.hosts[0]}/`, query: 'q', clicks: 1, impressions: 9, position: 2 },
      ]);
      await connect(s.id, { mode: 'delegated', property }).expect(200);
      expect(await pull(s.id)).toMatchObject({ pulled: 1, failed: 0, stopped: 0 });
      return { siteId: s.id, property };
    }

    it.each<[BrokenBody, GoogleCall, number]>([
      ['cut-off', 'site', 200],
      ['truncated', 'site', 200],
      ['html', 'site', 403],
      ['html', 'site', 404],
      ['cut-off', 'token', 200],
    ])('a %s %s answer (%i) is a failed pull tried again, not access withdrawn', async (how, at, status) => {
      const { siteId } = await delegated();
      providers.breakNextGoogle(how, at, status);
      expect(await pull(siteId)).toMatchObject({ pulled: 0, failed: 1, stopped: 0 });
      const failed = (await search(siteId)).primary;
      expect(failed).toMatchObject({ status: 'ok', statusMessage: null, lastPull: { ok: false } });
      expect(await pull(siteId)).toMatchObject({ pulled: 1, failed: 0, stopped: 0 });
      expect((await search(siteId)).primary).toMatchObject({ status: 'ok', lastPull: { ok: true } });
    });

    it('a connect whose sites.get answer is cut off is 503 (try again), not "no access"', async () => {
      const s = await site();
      const property = `sc-domain:${s.hosts[0]}`;
      providers.grant(own.email, property);
      providers.breakNextGoogle('cut-off', 'site');
      const res = await connect(s.id, { mode: 'delegated', property }).expect(503);
      expect(res.headers['retry-after']).toBe('60');
      expect(JSON.stringify(res.body)).not.toContain('has no access');
    });
  });

  describe('the twelve weeks of a first pull', () => {
    it('are filled by the next run when the first pull failed once', async () => {
      const s = await site();
      const property = `https://${s.hosts[0]}/`;
      providers.grant(customer.email, property);
      providers.googleData(property, [
        { day: sixWeeksAgo, page: `${property}a`, query: 'early', clicks: 3, impressions: 30, position: 4 },
      ]);
      await connect(s.id, { mode: 'service_account', property, key: customer.keyFile }).expect(200);
      providers.failNextGoogle(429, 'Quota exceeded for quota metric Queries per minute.', undefined, 'query');
      expect(await pull(s.id)).toMatchObject({ pulled: 0, failed: 1 });
      expect(await weeks(s.id)).toEqual([]);

      expect(await pull(s.id)).toMatchObject({ pulled: 1, failed: 0 });
      const filled = await weeks(s.id);
      expect(filled).toHaveLength(12);
      expect(filled.find((w) => w.week === sixWeeksAgo)).toMatchObject({ clicks: 3, impressions: 30 });
      // Once made whole, the daily pulls ask for the previous and the current week only.
      const asked = queriesOf(property);
      expect(await pull(s.id)).toMatchObject({ pulled: 1, failed: 0 });
      expect(queriesOf(property) - asked).toBe(2 * 3);
    });

    it('are filled after a stop (hostname unverified) even when the first pull after it failed once', async () => {
      const s = await site();
      const host = s.hosts[0] as string;
      const property = `sc-domain:${host}`;
      providers.grant(own.email, property);
      providers.googleData(property, [
        { day: today, page: `https://${host}/`, query: 'q', clicks: 1, impressions: 9, position: 2 },
      ]);
      await connect(s.id, { mode: 'delegated', property }).expect(200);
      expect(await pull(s.id)).toMatchObject({ pulled: 1, failed: 0 });
      const conn = t.deps.orm.em.fork().getConnection();
      await conn.execute('update site_hostnames set verified_at = null where site_id = ? and hostname = ?', [s.id, host], 'run');
      expect(await pull(s.id)).toMatchObject({ stopped: 1 });
      // Google has figures now for a week it reported nothing for before.
      providers.googleData(property, [
        { day: today, page: `https://${host}/`, query: 'q', clicks: 1, impressions: 9, position: 2 },
        { day: sixWeeksAgo, page: `https://${host}/`, query: 'late', clicks: 5, impressions: 50, position: 6 },
      ]);
      await conn.execute('update site_hostnames set verified_at = now() where site_id = ? and hostname = ?', [s.id, host], 'run');
      providers.failNextGoogle(429, 'Quota exceeded for quota metric Queries per minute.', undefined, 'query');
      expect(await pull(s.id)).toMatchObject({ pulled: 0, failed: 1, stopped: 0 });
      expect((await search(s.id)).primary).toMatchObject({ status: 'ok', lastPull: { ok: false } });

      const asked = queriesOf(property);
      expect(await pull(s.id)).toMatchObject({ pulled: 1, failed: 0, stopped: 0 });
      expect(queriesOf(property) - asked).toBe(12 * 3);
      expect((await weeks(s.id)).find((w) => w.week === sixWeeksAgo)).toMatchObject({ clicks: 5, impressions: 50 });
    });
  });

  describe('connecting another property', () => {
    it("leaves none of the old property's (or Bing site's) weeks, and fills the new one's twelve", async () => {
      const s = await site(2);
      const [a, b] = s.hosts.map((h) => `https://${h}/`) as [string, string];
      providers.grant(customer.email, a);
      providers.grant(customer.email, b);
      providers.googleData(a, [{ day: today, page: `${a}x`, query: 'old', clicks: 6, impressions: 100, position: 3 }]);
      providers.googleData(b, [{ day: lastWeek, page: `${b}y`, query: 'new', clicks: 9, impressions: 90, position: 2 }]);
      const apiKey = randomBytes(12).toString('hex');
      providers.bingKey(apiKey, [
        { url: a, verified: true },
        { url: b, verified: true },
      ]);
      providers.bingData(a, [{ day: today, page: `${a}x`, query: 'old', clicks: 8, impressions: 80, position: 3 }], [4]);
      providers.bingData(b, [{ day: lastWeek, page: `${b}y`, query: 'new', clicks: 1, impressions: 10, position: 2 }], []);
      await connect(s.id, { mode: 'service_account', property: a, key: customer.keyFile }).expect(200);
      await connect(s.id, { apiKey, siteUrl: a }, 'secondary').expect(200);
      expect(await pull(s.id)).toMatchObject({ pulled: 2, failed: 0 });
      expect((await weeks(s.id)).find((w) => w.week === thisWeek)).toMatchObject({ clicks: 6, impressions: 100 });

      // Connected again to the same property: its weeks stay.
      await connect(s.id, { mode: 'service_account', property: a, key: customer.keyFile }).expect(200);
      expect((await weeks(s.id)).find((w) => w.week === thisWeek)).toMatchObject({ clicks: 6 });

      // Another property: the old one's weeks are gone at once; Bing's (another source) stay.
      await connect(s.id, { mode: 'service_account', property: b, key: customer.keyFile }).expect(200);
      expect(await weeks(s.id)).toEqual([]);
      expect((await weeks(s.id, 'secondary')).find((w) => w.week === thisWeek)).toMatchObject({ clicks: 8 });
      expect(await pull(s.id)).toMatchObject({ pulled: 2, failed: 0 });
      const primary = await weeks(s.id);
      expect(primary).toHaveLength(12);
      // B reports nothing this week: not collected, never A's figures.
      expect(primary.find((w) => w.week === thisWeek)).toMatchObject({ clicks: null, impressions: null, pages: null });
      expect(primary.find((w) => w.week === lastWeek)).toMatchObject({ clicks: 9, impressions: 90, pages: 1 });

      // Another Bing site likewise.
      await connect(s.id, { apiKey, siteUrl: b }, 'secondary').expect(200);
      expect(await weeks(s.id, 'secondary')).toEqual([]);
      expect((await weeks(s.id)).find((w) => w.week === lastWeek)).toMatchObject({ clicks: 9 });
      expect(await pull(s.id)).toMatchObject({ pulled: 2, failed: 0 });
      const secondary = await weeks(s.id, 'secondary');
      expect(secondary).toHaveLength(12);
      expect(secondary.find((w) => w.week === thisWeek)).toMatchObject({ clicks: null, impressions: null });
      expect(secondary.find((w) => w.week === lastWeek)).toMatchObject({ clicks: 1, impressions: 10 });
    });

    it("stores none of the old property's figures from a pull under way while another is connected", async () => {
      const s = await site(2);
      const [a, b] = s.hosts.map((h) => `https://${h}/`) as [string, string];
      providers.grant(customer.email, a);
      providers.grant(customer.email, b);
      providers.googleData(a, [{ day: today, page: `${a}x`, query: 'old', clicks: 6, impressions: 100, position: 3 }]);
      providers.googleData(b, [{ day: lastWeek, page: `${b}y`, query: 'new', clicks: 9, impressions: 90, position: 2 }]);
      await connect(s.id, { mode: 'service_account', property: a, key: customer.keyFile }).expect(200);
      const hold = providers.holdNextQuery();
      const pulling = pull(s.id);
      await hold.reached;
      await connect(s.id, { mode: 'service_account', property: b, key: customer.keyFile }).expect(200);
      hold.release();
      expect(await pulling).toMatchObject({ failed: 0 });
      expect((await weeks(s.id)).filter((w) => w.clicks !== null)).toEqual([]);
      // B's own first pull follows, with its twelve weeks.
      expect((await search(s.id)).primary).toMatchObject({ property: b, lastPull: null });
      expect(await pull(s.id)).toMatchObject({ pulled: 1, failed: 0 });
      const primary = await weeks(s.id);
      expect(primary).toHaveLength(12);
      expect(primary.find((w) => w.week === thisWeek)).toMatchObject({ clicks: null });
      expect(primary.find((w) => w.week === lastWeek)).toMatchObject({ clicks: 9 });
    });
  });
});
