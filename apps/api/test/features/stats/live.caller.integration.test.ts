import { insertRows, pageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, problemOf } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** The dashboard's live figures (live.site, live.sites), called in-process. */

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

describe('live figures', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let restricted: ReturnType<typeof callerFor>;
  let noAnalytics: ReturnType<typeof callerFor>;
  let foreign: ReturnType<typeof callerFor>;
  let busy: string;
  let quiet: string;
  let windowed: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    const em = () => t.deps.orm.em.fork();
    busy = (await createSite(em(), { workspace: workspace.id, name: 'Busy' })).siteId;
    quiet = (await createSite(em(), { workspace: workspace.id, name: 'Quiet' })).siteId;
    windowed = (await createSite(em(), { workspace: workspace.id, name: 'Windowed' })).siteId;
    const token = (scopes: Parameters<typeof createToken>[1]['scopes'], siteIds?: string[]) =>
      createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes, siteIds }).then((r) => callerFor(t.deps, r));
    owner = await token(['analytics:read']);
    restricted = await token(['analytics:read'], [quiet]);
    noAnalytics = await token(['sites:read']);
    const other = await createUser(t.deps);
    foreign = callerFor(
      t.deps,
      await createToken(t.deps, { userId: other.user.id, workspaceId: other.workspace.id, scopes: ['analytics:read'] }),
    );

    // Busy: three people in the last 5 minutes (one with two pageviews), one 20 minutes ago, an
    // internal visit and a crawler-like bot now; Quiet: one person 10 minutes ago.
    await insertRows(t.deps.orm, 'pageviews', [
      pageviewRow(busy, minutesAgo(1), {
        visitor: 'a',
        path: '/pricing',
        referrerHost: 'www.google.com',
        source: 'Google',
        country: 'DE',
      }),
      pageviewRow(busy, minutesAgo(0.5), { visitor: 'a', path: '/signup', sessionStart: false, country: 'DE' }),
      pageviewRow(busy, minutesAgo(2), { visitor: 'b', path: '/', device: 'mobile' }),
      pageviewRow(busy, minutesAgo(4), { visitor: 'c', path: '/blog', utmSource: 'newsletter' }),
      pageviewRow(busy, minutesAgo(20), { visitor: 'd', path: '/old' }),
      pageviewRow(busy, minutesAgo(45), { visitor: 'e', path: '/older-than-the-list' }),
      pageviewRow(busy, minutesAgo(3), { visitor: 'me', path: '/admin', lane: 'internal' }),
      pageviewRow(busy, minutesAgo(3.5), { visitor: 'bot', path: '/', lane: 'bot' }),
      pageviewRow(quiet, minutesAgo(10), { visitor: 'q', path: '/' }),
      pageviewRow(windowed, minutesAgo(1), { visitor: 'w1', path: '/', country: 'US' }),
      pageviewRow(windowed, minutesAgo(1), { visitor: 'w2', path: '/', country: 'FR' }),
    ]);
    // A bot window over the last hour for US traffic: it counts in the bot lane, as in every figure.
    const site = await t.deps.orm.em
      .fork()
      .getConnection()
      .execute(`update sites set settings = jsonb_set(coalesce(settings, '{}'::jsonb), '{botWindows}', ?::jsonb) where id = ?`, [
        JSON.stringify([{ from: minutesAgo(60).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), country: 'US' }]),
        windowed,
      ]);
    expect(site).toBeDefined();
  });
  afterAll(() => t.close());

  it('counts the people of the last 5 minutes and lists the last pageviews of every lane, newest first', async () => {
    const now = await owner.live.site({ id: busy });
    expect(now).toMatchObject({ minutes: 5, visitors: 3, pageviews: 4 });
    expect(now.recent.map((r) => [r.path, r.lane])).toEqual([
      ['/signup', 'human'],
      ['/pricing', 'human'],
      ['/', 'human'],
      ['/admin', 'internal'],
      ['/', 'bot'],
      ['/blog', 'human'],
      ['/old', 'human'],
    ]);
    // The source as the Sources card names it (the referrer's family), not the referrer's host.
    expect(now.recent[1]).toMatchObject({ source: 'Google', country: 'DE', device: 'desktop' });
    expect(now.recent[2]).toMatchObject({ source: null, country: null, device: 'mobile' });
    expect(now.recent[5]).toMatchObject({ path: '/blog', source: 'newsletter' });
    expect(Object.keys(now.recent[0] ?? {}).sort()).toEqual(['at', 'country', 'device', 'lane', 'path', 'source']);
  });

  it('applies the site’s bot windows', async () => {
    const now = await owner.live.site({ id: windowed });
    expect(now.visitors).toBe(1);
    expect(now.recent.map((r) => r.lane).sort()).toEqual(['bot', 'human']);
  });

  it('the sites list: visitors now of each site the caller sees, in the list’s order', async () => {
    const all = await owner.live.sites();
    expect(all.sites).toEqual([
      { id: busy, visitors: 3 },
      { id: quiet, visitors: 0 },
      { id: windowed, visitors: 1 },
    ]);
    expect((await restricted.live.sites()).sites).toEqual([{ id: quiet, visitors: 0 }]);
  });

  it('sparklines: people and pageviews per day of the last week, each site in its own days', async () => {
    const { sites } = await owner.live.sparklines();
    expect(sites.map((s) => s.id)).toEqual([busy, quiet, windowed]);
    const busyLine = sites[0];
    expect(busyLine?.days).toHaveLength(7);
    expect(busyLine?.days.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    // People a, b, c, d, e (the internal visit and the bot are not people), 6 pageviews, all within the
    // last hour: today, or yesterday for the oldest just after midnight.
    const sum = (xs: number[] | undefined) => (xs ?? []).reduce((a, b) => a + b, 0);
    expect(sum(busyLine?.visitors)).toBe(5);
    expect(sum(busyLine?.pageviews)).toBe(6);
    expect(sum(busyLine?.visitors.slice(0, 5))).toBe(0);
    expect((await restricted.live.sparklines()).sites.map((s) => s.id)).toEqual([quiet]);
    expect((await problemOf(noAnalytics.live.sparklines())).status).toBe(403);
  });

  it('refuses a site of another workspace or outside the token (404) and a token without analytics:read (403)', async () => {
    expect((await problemOf(foreign.live.site({ id: busy }))).status).toBe(404);
    expect((await problemOf(restricted.live.site({ id: busy }))).status).toBe(404);
    expect((await problemOf(noAnalytics.live.site({ id: busy }))).status).toBe(403);
    expect((await problemOf(noAnalytics.live.sites())).status).toBe(403);
    expect((await foreign.live.sites()).sites).toEqual([]);
  });
});
