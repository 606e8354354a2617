import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, problemOf } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';

/** Site operations through the service-level layer: the same rules as REST and MCP, without HTTP. */
describe('sites, called in-process', () => {
  let t: TestServer;
  let caller: ReturnType<typeof callerFor>;
  let readOnly: ReturnType<typeof callerFor>;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    const full = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read', 'sites:write'] });
    const reader = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
    caller = callerFor(t.deps, { token: full.token });
    readOnly = callerFor(t.deps, { token: reader.token });
  });
  afterAll(() => t.close());

  it('creates, lists, renames and deletes a site', async () => {
    const { site, publicKey } = await caller.sites.create({ name: 'Caller shop', timezone: 'Europe/Berlin' });
    expect(publicKey.value).toMatch(/^pk_[a-z0-9]{26}$/);
    expect((await caller.sites.list()).sites.map((s) => s.id)).toContain(site.id);
    const renamed = await caller.sites.update({ id: site.id, name: 'Renamed' });
    expect(renamed.site.name).toBe('Renamed');
    await caller.sites.delete({ id: site.id });
    expect(await problemOf(caller.sites.get({ id: site.id }))).toMatchObject({ status: 404 });
  });

  it('applies scopes, validation and the unsafe-text door like every face', async () => {
    expect(await problemOf(readOnly.sites.create({ name: 'Nope' }))).toMatchObject({ status: 403 });
    expect(await problemOf(caller.sites.create({ name: '' }))).toMatchObject({ status: 400, field: 'name' });
    expect(await problemOf(caller.sites.create({ name: 'Shop\u0000' }))).toMatchObject({ status: 400, field: 'name' });
  });

  it('refuses an unknown or revoked credential', async () => {
    const stranger = callerFor(t.deps, { token: 'ust_unknown' });
    expect(await problemOf(stranger.sites.list())).toMatchObject({ status: 401 });
  });
});
