import type { Scope } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, problemOf } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/**
 * A token never obtains figures through a shared link or an e-mail report that it could not read
 * directly: every procedure that hands out a link, or sends figures to an address, needs
 * `analytics:read` as well as the site scope. Each case is a token holding only one of the two.
 */
describe('sharing needs both scopes', () => {
  let t: TestServer;
  let siteId: string;
  let tokenWith: (scopes: Scope[]) => Promise<ReturnType<typeof callerFor>>;
  let full: ReturnType<typeof callerFor>;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Scoped' })).siteId;
    tokenWith = async (scopes) =>
      callerFor(t.deps, await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes }));
    full = await tokenWith(['analytics:read', 'sites:read', 'sites:write']);
  });
  afterAll(() => t.close());

  const missing = (scope: Scope) => ({ status: 403, title: expect.stringMatching(new RegExp(`^Missing scope ${scope}:`)) });

  it('listing shared links needs analytics:read and sites:read (the list holds the links themselves)', async () => {
    await full.shares.create({ id: siteId, label: 'Board' });
    const sitesOnly = await tokenWith(['sites:read', 'sites:write']);
    expect(await problemOf(sitesOnly.shares.list({ id: siteId }))).toMatchObject(missing('analytics:read'));
    const analyticsOnly = await tokenWith(['analytics:read']);
    expect(await problemOf(analyticsOnly.shares.list({ id: siteId }))).toMatchObject(missing('sites:read'));
    const both = await tokenWith(['analytics:read', 'sites:read']);
    expect((await both.shares.list({ id: siteId })).links.map((l) => l.label)).toContain('Board');
  });

  it('making a shared link needs analytics:read and sites:write; revoking one needs only sites:write', async () => {
    const writer = await tokenWith(['sites:read', 'sites:write']);
    expect(await problemOf(writer.shares.create({ id: siteId, label: 'Mine' }))).toMatchObject(missing('analytics:read'));
    const reader = await tokenWith(['analytics:read', 'sites:read']);
    expect(await problemOf(reader.shares.create({ id: siteId, label: 'Mine' }))).toMatchObject(missing('sites:write'));
    const maker = await tokenWith(['analytics:read', 'sites:write']);
    const { link } = await maker.shares.create({ id: siteId, label: 'Mine' });
    // Revoking ends access to figures: a site writer may always do it.
    expect(await writer.shares.revoke({ id: siteId, linkId: link.id })).toEqual({ revoked: true });
  });

  it('adding an e-mail report or sending one now needs analytics:read and sites:write', async () => {
    const { report } = await full.reports.add({ id: siteId, address: 'scoped@example.com', frequency: 'weekly' });
    const writer = await tokenWith(['sites:read', 'sites:write']);
    expect(await problemOf(writer.reports.add({ id: siteId, address: 'mine@example.com', frequency: 'weekly' }))).toMatchObject(
      missing('analytics:read'),
    );
    expect(await problemOf(writer.reports.sendNow({ id: siteId, reportId: report.id }))).toMatchObject(missing('analytics:read'));
    const reader = await tokenWith(['analytics:read', 'sites:read']);
    expect(await problemOf(reader.reports.add({ id: siteId, address: 'mine@example.com', frequency: 'weekly' }))).toMatchObject(
      missing('sites:write'),
    );
    const maker = await tokenWith(['analytics:read', 'sites:write']);
    expect((await maker.reports.add({ id: siteId, address: 'mine@example.com', frequency: 'monthly' })).report.address).toBe(
      'mine@example.com',
    );
  });

  it('the report list (addresses, no figures) needs sites:read; removing a report needs sites:write', async () => {
    const { report } = await full.reports.add({ id: siteId, address: 'listed@example.com', frequency: 'weekly' });
    const sitesReader = await tokenWith(['sites:read']);
    expect((await sitesReader.reports.list({ id: siteId })).reports.map((r) => r.address)).toContain('listed@example.com');
    const analyticsOnly = await tokenWith(['analytics:read']);
    expect(await problemOf(analyticsOnly.reports.list({ id: siteId }))).toMatchObject(missing('sites:read'));
    const writer = await tokenWith(['sites:write']);
    expect(await writer.reports.remove({ id: siteId, reportId: report.id })).toEqual({ removed: true });
  });
});
