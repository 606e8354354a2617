import { randomUUID } from 'node:crypto';
import { insertRows, pageviewRow } from '@us/db';
import { SHARE_LINKS_PER_SITE } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readView, signView } from '../../../src/actor/share-view.ts';
import { SHARE_PASSWORD_GUESSES } from '../../../src/features/shares/open.ts';
import { callerFor, problemOf } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** Shared links (shares.*) and what a shared view may and may not reach, called in-process. */

const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
const tokenOf = (url: string) => url.split('/share/')[1] as string;

describe('shared links', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let reader: ReturnType<typeof callerFor>;
  let foreign: ReturnType<typeof callerFor>;
  let anonymous: ReturnType<typeof callerFor>;
  let siteId: string;
  let otherSiteId: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    const em = () => t.deps.orm.em.fork();
    siteId = (await createSite(em(), { workspace: workspace.id, name: 'Shared' })).siteId;
    otherSiteId = (await createSite(em(), { workspace: workspace.id, name: 'Private' })).siteId;
    const token = (scopes: Parameters<typeof createToken>[1]['scopes']) =>
      createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes }).then((r) => callerFor(t.deps, r));
    owner = await token(['sites:read', 'sites:write', 'analytics:read']);
    reader = await token(['sites:read', 'analytics:read']);
    const other = await createUser(t.deps);
    foreign = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: other.user.id,
        workspaceId: other.workspace.id,
        scopes: ['analytics:read', 'sites:write'],
      }),
    );
    anonymous = callerFor(t.deps, { anonymous: true });
    await insertRows(t.deps.orm, 'pageviews', [
      pageviewRow(siteId, hoursAgo(2), { visitor: 'a', path: '/', country: 'DE' }),
      pageviewRow(siteId, hoursAgo(2), { visitor: 'b', path: '/pricing', country: 'DE' }),
      pageviewRow(siteId, hoursAgo(1), { visitor: 'c', path: '/', country: 'FR' }),
      pageviewRow(otherSiteId, hoursAgo(1), { visitor: 'x', path: '/secret', country: 'US' }),
    ]);
  });
  afterAll(() => t.close());

  it('opens a link to the same figures the owner sees, and nothing but figures of that one site', async () => {
    const { link } = await owner.shares.create({ id: siteId, label: 'Board' });
    expect(link).toMatchObject({ label: 'Board', hasPassword: false, lastOpenedAt: null });
    expect(link.url).toMatch(new RegExp(`^${t.deps.urls.app.replace(/\/$/, '')}/share/shr_[A-Za-z0-9_-]{32}$`));
    // The owner can copy the link again later: the list shows the same address.
    expect((await reader.shares.list({ id: siteId })).links).toEqual([link]);

    const opened = await anonymous.shares.open({ token: tokenOf(link.url) });
    expect(opened.site).toEqual({ id: siteId, name: 'Shared', timezone: expect.any(String) });
    expect(new Date(opened.expiresAt).getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    const viewer = callerFor(t.deps, { shareView: opened.view });

    const range = { id: siteId, days: 7 };
    expect(await viewer.stats.summary(range)).toEqual(await owner.stats.summary(range));
    const top = { ...range, dimension: 'country' as const };
    expect(await viewer.stats.top(top)).toEqual(await owner.stats.top(top));
    const batch = { id: siteId, queries: { series: { metrics: 'pageviews' as const, by: 'day' as const, days: 7 } } };
    expect(await viewer.stats.batch(batch)).toEqual(await owner.stats.batch(batch));
    expect((await viewer.live.site({ id: siteId })).minutes).toBe(5);
    expect((await viewer.stats.catalogue()).metricSets).toBeDefined();
    expect((await reader.shares.list({ id: siteId })).links[0]?.lastOpenedAt).not.toBeNull();

    // Another site of the same workspace is not there; settings, keys, links, tokens and the account are refused.
    expect((await problemOf(viewer.stats.summary({ id: otherSiteId, days: 7 }))).status).toBe(404);
    for (const call of [
      viewer.sites.get({ id: siteId }),
      viewer.sites.list(),
      viewer.siteKeys.list({ id: siteId }),
      viewer.siteSettings.update({ id: siteId, internalNetworks: [] }),
      viewer.shares.list({ id: siteId }),
      viewer.shares.create({ id: siteId, label: 'Mine now' }),
      viewer.me.get(),
      viewer.live.sites(),
      viewer.export.create({ id: siteId }),
    ]) {
      const p = await problemOf(call as Promise<unknown>);
      expect(p.status).toBe(403);
      expect(p.title).toMatch(/shared link shows the dashboard only/);
    }
  });

  it('asks for the password of a protected link, counts wrong guesses before checking them, then refuses for a while', async () => {
    const { link } = await owner.shares.create({ id: siteId, label: 'Investors', password: 'plum-harbour-lantern-7' });
    expect(link.hasPassword).toBe(true);
    const token = tokenOf(link.url);
    expect(await problemOf(anonymous.shares.open({ token }))).toMatchObject({ status: 401, field: 'password' });
    expect(await problemOf(anonymous.shares.open({ token, password: 'wrong-password-1' }))).toMatchObject({
      status: 401,
      field: 'password',
      title: expect.stringMatching(/^Wrong password/),
    });
    const right = await anonymous.shares.open({ token, password: 'plum-harbour-lantern-7' });
    expect((await callerFor(t.deps, { shareView: right.view }).stats.summary({ id: siteId, days: 7 })).measures).toBeDefined();

    // Guesses sent at once: each is counted before it is checked, so no more than the allowance are tried.
    const guesses = await Promise.all(
      Array.from({ length: SHARE_PASSWORD_GUESSES + 5 }, (_, i) =>
        problemOf(anonymous.shares.open({ token, password: `guess-number-${i}` })),
      ),
    );
    expect(guesses.filter((p) => p.status === 429).length).toBeGreaterThanOrEqual(6);
    // Once the allowance is spent, even the right password waits.
    expect((await problemOf(anonymous.shares.open({ token, password: 'plum-harbour-lantern-7' }))).status).toBe(429);
  });

  // The defect: a right password was counted as a guess too, so the eleventh colleague to open the link within 15
  // minutes was told there had been too many wrong passwords.
  it('counts only wrong passwords: the right one opens the link however many people use it', async () => {
    const { link } = await owner.shares.create({ id: siteId, label: 'Board', password: 'plum-harbour-lantern-7' });
    const token = tokenOf(link.url);
    for (let i = 0; i < SHARE_PASSWORD_GUESSES + 2; i++) {
      expect((await anonymous.shares.open({ token, password: 'plum-harbour-lantern-7' })).view).toBeTruthy();
    }
    expect((await problemOf(anonymous.shares.open({ token, password: 'wrong-password-1' }))).status).toBe(401);
  });

  it('ends every view of a revoked link at its next call; the link no longer opens', async () => {
    const { link } = await owner.shares.create({ id: siteId, label: 'Temporary' });
    const token = tokenOf(link.url);
    const { view } = await anonymous.shares.open({ token });
    // A caller resolves its credential once, as one HTTP request does: each call here is a new request.
    const call = () => callerFor(t.deps, { shareView: view }).stats.summary({ id: siteId, days: 7 });
    await call();
    expect(await owner.shares.revoke({ id: siteId, linkId: link.id })).toEqual({ revoked: true });
    expect(await problemOf(call())).toMatchObject({
      status: 401,
      title: expect.stringMatching(/revoked/),
    });
    expect((await problemOf(anonymous.shares.open({ token }))).status).toBe(404);
    expect((await problemOf(owner.shares.revoke({ id: siteId, linkId: link.id }))).status).toBe(404);
  });

  it('refuses views that were altered, forged or have expired', async () => {
    const { link } = await owner.shares.create({ id: siteId, label: 'Forgery target' });
    const { view } = await anonymous.shares.open({ token: tokenOf(link.url) });
    const [id, expires, mac] = view.split('.') as [string, string, string];
    const later = `${id}.${Number(expires) + 86_400}.${mac}`;
    // An attacker's own views: altered, forged, made up, oversized (cut off before any work).
    const made = [later, `${id}.${expires}.${'0'.repeat(64)}`, 'not-a-view', `${randomUUID()}.${expires}.${mac}`];
    for (const bad of [...made, `${id}.${expires}.${'f'.repeat(100_000)}`, `${'a.'.repeat(5000)}`]) {
      expect(await problemOf(callerFor(t.deps, { shareView: bad }).stats.summary({ id: siteId, days: 7 }))).toMatchObject({
        status: 401,
        title: expect.stringMatching(/ended/),
      });
    }
    const signed = signView(t.deps.ciphers.share, link.id, hoursAgo(13));
    expect(readView(t.deps.ciphers.share, signed.view)).toBeNull();
    expect(readView(t.deps.ciphers.share, signView(t.deps.ciphers.share, link.id).view)).toBe(link.id);
  });

  it('checks what it is given and who asks', async () => {
    expect(await problemOf(owner.shares.create({ id: siteId, label: '' }))).toMatchObject({ status: 400, field: 'label' });
    expect(await problemOf(owner.shares.create({ id: siteId, label: 'Short', password: 'abc' }))).toMatchObject({
      status: 400,
      field: 'password',
    });
    expect(await problemOf(anonymous.shares.open({ token: 'https://example.com/share/x' }))).toMatchObject({
      status: 400,
      field: 'token',
    });
    expect((await problemOf(anonymous.shares.open({ token: `shr_${'A'.repeat(32)}` }))).status).toBe(404);
    expect((await problemOf(reader.shares.create({ id: siteId, label: 'No right' }))).status).toBe(403);
    expect((await problemOf(foreign.shares.create({ id: siteId, label: 'Not theirs' }))).status).toBe(404);
    expect((await problemOf(foreign.shares.revoke({ id: siteId, linkId: randomUUID() }))).status).toBe(404);
    expect((await problemOf(anonymous.shares.list({ id: siteId }))).status).toBe(401);
  });

  it(`keeps at most ${SHARE_LINKS_PER_SITE} links per site, even when they are made at once`, async () => {
    const { siteId: busy } = await createSite(t.deps.orm.em.fork(), {
      workspace: (await reader.me.get()).workspaceId as string,
      name: 'Many links',
    });
    const made = await Promise.allSettled(
      Array.from({ length: SHARE_LINKS_PER_SITE + 4 }, (_, i) => owner.shares.create({ id: busy, label: `Link ${i}` })),
    );
    expect(made.filter((m) => m.status === 'fulfilled').length).toBe(SHARE_LINKS_PER_SITE);
    expect((await owner.shares.list({ id: busy })).links).toHaveLength(SHARE_LINKS_PER_SITE);
    expect(await problemOf(owner.shares.create({ id: busy, label: 'One more' }))).toMatchObject({ status: 409 });
  });
});
