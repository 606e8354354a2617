// Delegated access checked again before every pull, against the providers' stand-ins: a hostname that
// stops being verified stops the pulls without a call to Google, and they resume once it is verified
// again; access withdrawn in Search Console (the stand-in then answers 403) stops them until the source
// is connected again. The connection says which, and what to do.
import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKey } from '../../../src/features/search/google.ts';
import { runSearchPull } from '../../../src/features/search/search-pull-job.ts';
import { type SearchProviders, searchTestServer } from '../../support/search-providers.ts';
import { createToken, createUser, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

const DAY = 86_400_000;
const HOUR = 3600_000;

describe('delegated search access, checked before every pull', () => {
  let providers: SearchProviders;
  let t: TestServer;
  let auth: string;
  let own: { email: string; keyFile: Record<string, string> };
  let siteId: string;
  let host: string;
  let property: string;
  /** The pulls' clock: connections are due from the moment they are made. */
  let clock = 0;

  const setup = () => ({
    googleApi: providers.googleUrl,
    bingApi: providers.bingUrl,
    cipher: t.deps.ciphers.search,
    ownKey: readKey(own.keyFile, providers.googleUrl),
  });
  /** The pull `ms` later than the last one. */
  const pullAfter = (ms: number) => {
    clock += ms;
    return runSearchPull(t.deps.orm, setup(), { now: new Date(clock), siteIds: [siteId], wait: true });
  };
  const primary = async () =>
    (await t.request.get(`/v1/sites/${siteId}/search`).set('Authorization', auth).expect(200)).body.primary;
  const googleCalls = () => providers.seen.filter((s) => s.includes('/google/') || s.includes('/token')).length;
  const analyticsCalls = () => providers.seen.filter((s) => s.endsWith('/searchAnalytics/query')).length;

  beforeAll(async () => {
    ({ providers, own, t } = await searchTestServer('unseen-delegated'));
    const { user, workspace } = await createUser(t.deps);
    const scopes = ['search:read', 'search:write', 'sites:read', 'sites:write'] as const;
    auth = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: [...scopes] })).token}`;
    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: workspace.id, name: 'Delegated' });
    host = `delegated-${randomBytes(4).toString('hex')}.example.test`;
    em.create(SiteHostname, { site, hostname: host, verifyToken: 'v'.repeat(32), verifiedAt: new Date() });
    await em.flush();
    siteId = site.id;
    property = `sc-domain:${host}`;
    providers.grant(own.email, property);
    providers.googleData(property, [
      {
        day: new Date().toISOString().slice(0, 10),
        page: `https://${host}/`,
        query: 'q',
        clicks: 1,
        impressions: 9,
        position: 2,
      },
    ]);
    await t.request
      .put(`/v1/sites/${siteId}/search/primary`)
      .set('Authorization', auth)
      .send({ mode: 'delegated', property })
      .expect(200);
    clock = Date.now() + 1000;
  });
  afterAll(async () => {
    await t?.close();
    await providers?.close();
  });

  it('pulls while the hostname is verified and access granted, and says so', async () => {
    expect(await primary()).toMatchObject({ mode: 'delegated', status: 'ok', statusMessage: null });
    expect(await pullAfter(0)).toEqual({ ran: true, pulled: 1, failed: 0, stopped: 0 });
    expect(await primary()).toMatchObject({ status: 'ok', statusMessage: null, lastPull: { ok: true } });
  });

  it('stops the pulls when the hostname is no longer verified (no call to Google), and resumes once it is again', async () => {
    await t.request.delete(`/v1/sites/${siteId}/hostnames/${host}`).set('Authorization', auth).expect(204);
    const before = googleCalls();
    expect(await pullAfter(DAY + 1000)).toEqual({ ran: true, pulled: 0, failed: 0, stopped: 1 });
    expect(googleCalls()).toBe(before);
    const stopped = await primary();
    expect(stopped.status).toBe('hostname-unverified');
    expect(stopped.statusMessage).toBe(
      `Pulls are stopped: ${host} is no longer a verified hostname of this site. Verify it again (pulls then resume on their own), or connect again with mode service_account and your own key`,
    );
    // Checked again an hour later, still without asking Google.
    expect(await pullAfter(HOUR + 1000)).toMatchObject({ pulled: 0, stopped: 1 });
    expect(googleCalls()).toBe(before);

    // Verified again: the next hourly pull goes ahead, and fills the twelve weeks it may have missed.
    const em = t.deps.orm.em.fork();
    em.create(SiteHostname, { site: siteId, hostname: host, verifyToken: 'w'.repeat(32), verifiedAt: new Date() });
    await em.flush();
    const asked = analyticsCalls();
    expect(await pullAfter(HOUR + 1000)).toEqual({ ran: true, pulled: 1, failed: 0, stopped: 0 });
    expect(analyticsCalls() - asked).toBe(12 * 3);
    expect(await primary()).toMatchObject({ status: 'ok', statusMessage: null, lastPull: { ok: true } });
  });

  // The fault: Google answers 403 for usage limits too (one delegated service account serves every customer, and one
  // tenant's loop of connects could spend its minute). Taken as access withdrawn, it stopped the pulls for good.
  it('a 403 for a usage limit is a failed pull tried again, not access withdrawn', async () => {
    providers.failNextGoogle(403, 'Quota exceeded for quota metric Queries per minute per user.', 'userRateLimitExceeded');
    const failed = await pullAfter(DAY + 1000);
    expect(failed).toMatchObject({ ran: true, pulled: 0, failed: 1, stopped: 0 });
    const after = await primary();
    expect(after.status).not.toBe('access-lost');
    expect(after.lastPull).toMatchObject({ ok: false });
    expect(await pullAfter(DAY)).toMatchObject({ pulled: 1, failed: 0, stopped: 0 });
    expect(await primary()).toMatchObject({ status: 'ok', lastPull: { ok: true } });
  });

  it('stops the pulls when access is withdrawn in Search Console, until the source is connected again', async () => {
    providers.revoke(own.email, property);
    expect(await pullAfter(DAY + 1000)).toEqual({ ran: true, pulled: 0, failed: 0, stopped: 1 });
    const lost = await primary();
    expect(lost.status).toBe('access-lost');
    expect(lost.statusMessage).toBe(
      `Pulls are stopped: ${own.email} can no longer read ${property} in Search Console. Add it as a user of the property again, then connect again`,
    );
    // Not pulled again, even days later: nothing is asked of Google.
    const before = providers.seen.length;
    expect(await pullAfter(3 * DAY)).toEqual({ ran: true, pulled: 0, failed: 0, stopped: 0 });
    expect(providers.seen.length).toBe(before);
    // Granted again alone does not resume them: connecting again does (access checked at connect).
    providers.grant(own.email, property);
    expect(await pullAfter(DAY)).toMatchObject({ pulled: 0, stopped: 0 });
    const again = await t.request
      .put(`/v1/sites/${siteId}/search/primary`)
      .set('Authorization', auth)
      .send({ mode: 'delegated', property })
      .expect(200);
    expect(again.body.primary).toMatchObject({ status: 'ok', statusMessage: null });
    expect(await pullAfter(1000)).toEqual({ ran: true, pulled: 1, failed: 0, stopped: 0 });
    expect(await primary()).toMatchObject({ status: 'ok', lastPull: { ok: true } });
  });
});
