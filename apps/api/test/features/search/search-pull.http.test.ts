// The daily search pull against the providers' stand-ins: weekly rows per source with the figures the
// providers report (zero measured, null not collected), the current week filled in, links only where
// Bing gives them, and a provider's refusal shown on the connection with backoff, the weeks kept.
import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSearchPull } from '../../../src/features/search/search-pull-job.ts';
import { mondayOf } from '../../../src/features/search/weeks.ts';
import { craftedRsaKey } from '../../support/crafted-rsa-key.ts';
import { fetchBytes } from '../../support/download.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { type SearchProviders, startSearchProviders } from '../../support/search-providers.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** A stored week the provider reported nothing for. */
const NOTHING = {
  clicks: null,
  impressions: null,
  ctr: null,
  position: null,
  pages: null,
  queries: null,
  links: null,
  top: null,
};

const dayBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

describe('search pull', () => {
  let providers: SearchProviders;
  let t: TestServer;
  let auth: string;
  let siteId: string;
  let property: string;
  // Set when the first pull runs: connections are due from the moment they are made.
  let now = new Date();
  const today = now.toISOString().slice(0, 10);
  const thisWeek = mondayOf(today);
  const lastWeek = dayBefore(thisWeek, 7);
  const threeWeeksAgo = dayBefore(thisWeek, 21);
  const setup = () => ({
    googleApi: providers.googleUrl,
    bingApi: providers.bingUrl,
    cipher: t.deps.ciphers.search,
    ownKey: null,
  });
  const pull = (at: Date) => runSearchPull(t.deps.orm, setup(), { now: at, siteIds: [siteId], wait: true });
  const weeks = async () => (await t.request.get(`/v1/sites/${siteId}/search/weeks`).set('Authorization', auth).expect(200)).body;

  beforeAll(async () => {
    providers = await startSearchProviders();
    t = await startTestServer({ env: { SEARCH_GOOGLE_API_URL: providers.googleUrl, SEARCH_BING_API_URL: providers.bingUrl } });
    const { user, workspace } = await createUser(t.deps);
    auth = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['search:read', 'search:write'] })).token}`;
    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: workspace.id, name: 'Pulled' });
    const host = `pulled-${randomBytes(4).toString('hex')}.example.test`;
    em.create(SiteHostname, { site, hostname: host, verifyToken: 'v'.repeat(32), verifiedAt: new Date() });
    await em.flush();
    siteId = site.id;
    property = `https://${host}/`;

    const reader = providers.serviceAccount('puller');
    providers.grant(reader.email, property);
    const apiKey = randomBytes(12).toString('hex');
    providers.bingKey(apiKey, [{ url: property, verified: true }]);
    // This week: two pages and two queries; last week: one; three weeks ago: one day with no clicks.
    const traffic = [
      { day: today, page: `${property}a`, query: 'cookie-free analytics', clicks: 6, impressions: 100, position: 3 },
      { day: today, page: `${property}b`, query: 'bot protection', clicks: 4, impressions: 300, position: 7 },
      { day: lastWeek, page: `${property}a`, query: 'cookie-free analytics', clicks: 2, impressions: 50, position: 5 },
      { day: threeWeeksAgo, page: `${property}a`, query: 'plausible alternative', clicks: 0, impressions: 10, position: 12 },
    ];
    providers.googleData(property, traffic);
    providers.bingData(
      property,
      traffic.map((d) => ({ ...d, clicks: d.clicks * 2 })),
      [7, 5],
    );
    await t.request
      .put(`/v1/sites/${siteId}/search/primary`)
      .set('Authorization', auth)
      .send({ mode: 'service_account', property, key: reader.keyFile })
      .expect(200);
    await t.request
      .put(`/v1/sites/${siteId}/search/secondary`)
      .set('Authorization', auth)
      .send({ apiKey, siteUrl: property })
      .expect(200);
  });
  afterAll(async () => {
    await t?.close();
    await providers?.close();
  });

  it('fills twelve weeks per source on the first pull, with what each provider gives', async () => {
    now = new Date();
    expect(await pull(now)).toEqual({ ran: true, pulled: 2, failed: 0, stopped: 0 });
    const body = await weeks();
    const row = (week: string, source: string) =>
      body.weeks.find((w: { week: string; source: string }) => w.week === week && w.source === source);
    expect(body.weeks.filter((w: { source: string }) => w.source === 'primary')).toHaveLength(12);
    expect(row(thisWeek, 'primary')).toEqual({
      week: thisWeek,
      source: 'primary',
      clicks: 10,
      impressions: 400,
      ctr: 0.025,
      position: 6,
      pages: 2,
      queries: 2,
      links: null,
      top: {
        pages: [
          { key: `${property}a`, clicks: 6, impressions: 100 },
          { key: `${property}b`, clicks: 4, impressions: 300 },
        ],
        queries: [
          { key: 'cookie-free analytics', clicks: 6, impressions: 100 },
          { key: 'bot protection', clicks: 4, impressions: 300 },
        ],
      },
    });
    expect(row(lastWeek, 'primary')).toMatchObject({ clicks: 2, impressions: 50, pages: 1, queries: 1 });
    // Shown but never clicked: zero clicks is a measurement, and the rate is zero too.
    expect(row(threeWeeksAgo, 'primary')).toMatchObject({ clicks: 0, impressions: 10, ctr: 0, position: 12 });
    // A week the provider reported nothing for: not collected, so every figure is null, never zero.
    expect(row(dayBefore(thisWeek, 14), 'primary')).toEqual({ ...NOTHING, week: dayBefore(thisWeek, 14), source: 'primary' });
    expect(row(dayBefore(thisWeek, 14), 'secondary')).toEqual({ ...NOTHING, week: dayBefore(thisWeek, 14), source: 'secondary' });
    expect(row(thisWeek, 'secondary')).toEqual({
      week: thisWeek,
      source: 'secondary',
      clicks: 20,
      impressions: 400,
      ctr: 0.05,
      position: 6,
      pages: 2,
      queries: 2,
      links: 12,
      top: {
        pages: [
          { key: `${property}a`, clicks: 12, impressions: 100 },
          { key: `${property}b`, clicks: 8, impressions: 300 },
        ],
        queries: [
          { key: 'cookie-free analytics', clicks: 12, impressions: 100 },
          { key: 'bot protection', clicks: 8, impressions: 300 },
        ],
      },
    });
    // Links are a count as of now: only the current week has them.
    expect(row(lastWeek, 'secondary')).toMatchObject({ clicks: 4, links: null });
    const search = (await t.request.get(`/v1/sites/${siteId}/search`).set('Authorization', auth).expect(200)).body;
    expect(search.primary.lastPull).toMatchObject({ ok: true, message: null });
    // Not due again until tomorrow.
    expect(await pull(new Date(now.getTime() + 3600_000))).toEqual({ ran: true, pulled: 0, failed: 0, stopped: 0 });
  });

  it('shows a refused pull on the connection, keeps the weeks, and tries again after an hour, then later', async () => {
    const before = await weeks();
    const tomorrow = new Date(now.getTime() + 86_401_000);
    providers.failNextGoogle(429, 'Quota exceeded for quota metric Queries per day.');
    expect(await pull(tomorrow)).toMatchObject({ pulled: 1, failed: 1 });
    const search = (await t.request.get(`/v1/sites/${siteId}/search`).set('Authorization', auth).expect(200)).body;
    expect(search.primary.lastPull).toMatchObject({ ok: false });
    expect(search.primary.lastPull.message).toBe(
      'last pull failed: Google answered 429: Quota exceeded for quota metric Queries per day.',
    );
    expect((await weeks()).weeks).toEqual(before.weeks);
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ next_pull_at: Date; failures: number }[]>(
        `select next_pull_at, failures from search_connections where site_id = ? and source = 'primary'`,
        [siteId],
      );
    expect(row?.failures).toBe(1);
    expect(new Date(row?.next_pull_at as Date).getTime() - tomorrow.getTime()).toBe(3600_000);
    // An hour later it works again: the last two weeks are asked for, and the connection says so.
    expect(await pull(new Date(tomorrow.getTime() + 3601_000))).toMatchObject({ pulled: 1, failed: 0 });
    const again = (await t.request.get(`/v1/sites/${siteId}/search`).set('Authorization', auth).expect(200)).body;
    expect(again.primary.lastPull).toMatchObject({ ok: true, message: null });
  });

  it('goes on with the other connections when one fails unexpectedly (a credential that no longer opens)', async () => {
    const conn = t.deps.orm.em.getConnection();
    await conn.execute(
      `update search_connections set credentials_enc = 'not-sealed', next_pull_at = now() where site_id = ? and source = 'secondary'`,
      [siteId],
    );
    await conn.execute(`update search_connections set next_pull_at = now() where site_id = ? and source = 'primary'`, [siteId]);
    expect(await pull(new Date(Date.now() + 1000))).toMatchObject({ pulled: 1, failed: 1 });
    const search = (await t.request.get(`/v1/sites/${siteId}/search`).set('Authorization', auth).expect(200)).body;
    expect(search.primary.lastPull).toMatchObject({ ok: true });
    expect(search.secondary.lastPull).toEqual(
      expect.objectContaining({ ok: false, message: 'last pull failed: an unexpected error (see the server log)' }),
    );
  });
  it('refuses to sign with a stored key past today’s bounds (kept before them) and says so on the connection', async () => {
    const conn = t.deps.orm.em.getConnection();
    const stored = {
      client_email: 'old@unseen-test.iam.gserviceaccount.com',
      private_key: craftedRsaKey(8192),
      token_uri: providers.tokenUri,
    };
    await conn.execute(
      `update search_connections set credentials_enc = ?, next_pull_at = now() where site_id = ? and source = 'primary'`,
      [t.deps.ciphers.search.encrypt(JSON.stringify(stored)), siteId],
    );
    const before = providers.seen.length;
    expect(await pull(new Date(Date.now() + 2000))).toMatchObject({ failed: 1 });
    expect(providers.seen.length).toBe(before);
    const search = (await t.request.get(`/v1/sites/${siteId}/search`).set('Authorization', auth).expect(200)).body;
    expect(search.primary.lastPull).toMatchObject({
      ok: false,
      message:
        "last pull failed: the stored key file is refused: The key file's private_key is an RSA key of 8,192 bits: give a key of 2,048 to 4,096 bits (Google makes 2,048-bit keys)",
    });
  });

  it('stores and answers what a provider did not report as null, and a later pull never turns a known figure into null', async () => {
    // A second site whose providers report partly: Google gives clicks but no position this week and
    // nothing last week; Bing lists two days of this week, without positions, and nothing last week.
    const { user, workspace } = await createUser(t.deps);
    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: workspace.id, name: 'Partly reported' });
    const host = `partly-${randomBytes(4).toString('hex')}.example.test`;
    em.create(SiteHostname, { site, hostname: host, verifyToken: 'v'.repeat(32), verifiedAt: new Date() });
    await em.flush();
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['search:read', 'search:write', 'export:read'],
    });
    const owner = `Bearer ${token}`;
    const site2 = `https://${host}/`;
    const reader = providers.serviceAccount('partial-reader');
    providers.grant(reader.email, site2);
    const apiKey = randomBytes(12).toString('hex');
    providers.bingKey(apiKey, [{ url: site2, verified: true }]);
    const monday = thisWeek;
    providers.googleData(site2, [{ day: today, page: `${site2}a`, query: 'partly', clicks: 3, impressions: 40 }]);
    providers.bingData(
      site2,
      [
        { day: monday, page: `${site2}a`, query: 'partly', clicks: 1, impressions: 10 },
        { day: today, page: `${site2}b`, query: 'partly', clicks: 2, impressions: 30 },
      ],
      [],
    );
    await t.request
      .put(`/v1/sites/${site.id}/search/primary`)
      .set('Authorization', owner)
      .send({ mode: 'service_account', property: site2, key: reader.keyFile })
      .expect(200);
    await t.request
      .put(`/v1/sites/${site.id}/search/secondary`)
      .set('Authorization', owner)
      .send({ apiKey, siteUrl: site2 })
      .expect(200);
    const first = new Date(Date.now() + 1000);
    const pullSite = (at: Date) => runSearchPull(t.deps.orm, setup(), { now: at, siteIds: [site.id], wait: true });
    expect(await pullSite(first)).toMatchObject({ pulled: 2, failed: 0 });

    const read = async () =>
      (await t.request.get(`/v1/sites/${site.id}/search/weeks`).set('Authorization', owner).expect(200)).body.weeks as {
        week: string;
        source: string;
      }[];
    const at = (weeks: { week: string; source: string }[], week: string, source: string) =>
      weeks.find((w) => w.week === week && w.source === source);
    let weeks = await read();
    expect(at(weeks, thisWeek, 'primary')).toMatchObject({ clicks: 3, impressions: 40, ctr: 0.075, position: null, pages: 1 });
    expect(at(weeks, lastWeek, 'primary')).toEqual({ ...NOTHING, week: lastWeek, source: 'primary' });
    // Bing: the days it listed, summed; no position reported, so none (not 0); links listed as none: 0.
    expect(at(weeks, thisWeek, 'secondary')).toMatchObject({
      clicks: 3,
      impressions: 40,
      position: null,
      pages: 2,
      queries: 1,
      links: 0,
    });
    expect(at(weeks, lastWeek, 'secondary')).toEqual({ ...NOTHING, week: lastWeek, source: 'secondary' });

    // The same nulls through the MCP tool and in the export's site store.
    const tool = await modernCall(t.url, token, 'tools/call', {
      name: 'get_site_search_weeks',
      arguments: { id: site.id },
    });
    const viaTool = tool.body.result.structuredContent.weeks;
    expect(at(viaTool, lastWeek, 'primary')).toEqual({ ...NOTHING, week: lastWeek, source: 'primary' });
    expect(at(viaTool, thisWeek, 'secondary')).toMatchObject({ position: null });
    const exported = await t.request.post(`/v1/sites/${site.id}/export`).set('Authorization', owner).send({}).expect(200);
    const storeUrl = exported.body.files.find((f: { name: string }) => f.name === 'site-store.ndjson').url;
    const lines = (await fetchBytes(t, storeUrl).expect(200)).body
      .toString()
      .trim()
      .split('\n')
      .map((l: string) => JSON.parse(l))
      .filter((l: { type: string }) => l.type === 'search-week');
    expect(at(lines, lastWeek, 'primary')).toEqual({ type: 'search-week', ...NOTHING, week: lastWeek, source: 'primary' });
    expect(at(lines, thisWeek, 'primary')).toMatchObject({ clicks: 3, position: null });

    // At the next pull Google reports this week's position and impressions but no longer its clicks, and last
    // week after all: the reported figures replace or fill, the missing clicks keep the known 3. The pull is
    // made due a second later rather than a day later: on a Sunday the next day's pull would begin a new week
    // and no longer ask for last week.
    providers.googleData(site2, [
      { day: today, page: `${site2}a`, query: 'partly', impressions: 60, position: 4 },
      { day: lastWeek, page: `${site2}a`, query: 'late', clicks: 1, impressions: 5, position: 9 },
    ]);
    const next = new Date(first.getTime() + 1000);
    await t.deps.orm.em
      .fork()
      .getConnection()
      .execute('update search_connections set next_pull_at = ? where site_id = ?', [next, site.id], 'run');
    expect(await pullSite(next)).toMatchObject({ pulled: 2, failed: 0 });
    weeks = await read();
    expect(at(weeks, thisWeek, 'primary')).toMatchObject({ clicks: 3, impressions: 60, position: 4, ctr: 0.075 });
    expect(at(weeks, lastWeek, 'primary')).toMatchObject({ clicks: 1, impressions: 5, position: 9, pages: 1, queries: 1 });
  });
});
