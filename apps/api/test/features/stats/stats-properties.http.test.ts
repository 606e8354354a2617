// Issue 40 item 2: custom properties in the stats spec over HTTP. Reports go through POST /collect as a page
// sends them; the figures come back by prop:<key> (break down and filter) for pageviews, sessions and
// events, only within the raw 90 days, and the keys route lists what the site's pages sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, postReport } from '../../support/collect.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

describe('stats by custom property (prop:<key>)', () => {
  let t: TestServer;
  let site: CollectSite;
  let other: CollectSite;

  beforeAll(async () => {
    t = await startTestServer();
    site = await collectSite(t, 'props-stats.example', ['analytics:read']);
    other = await collectSite(t, 'props-other.example', ['analytics:read']);
    const reports: Record<string, unknown>[] = [
      { n: 1, pr: { plan: 'pro', 'Team size': 'small' } },
      { n: 2, pr: { plan: 'pro' } },
      { n: 1, pr: { plan: 'free' } },
      { n: 1 },
      { t: 'ev', e: 'signup', pr: { plan: 'pro' } },
      { t: 'ev', e: 'signup', pr: { plan: 'free' } },
      { t: 'ev', e: 'signup', pr: { plan: 'free' } },
    ];
    for (const extra of reports) await postReport(t, site, { extra }).expect(202);
    // Another site's properties stay its own.
    await postReport(t, other, { extra: { pr: { plan: 'enterprise', secret: 'x' } } }).expect(202);
    await t.deps.ingest.flushNow();
  });
  afterAll(() => t.close());

  const stats = (query: Record<string, string | number>, s = site) =>
    t.request
      .get(`/v1/sites/${s.siteId}/stats`)
      .query({ days: 1, ...query })
      .set('Authorization', s.auth);
  const rowsOf = (body: { rows: { value: string | null; counts: Record<string, number> }[] }, count: string) =>
    Object.fromEntries(body.rows.map((r) => [r.value ?? '(none)', r.counts[count]]));

  it('breaks pageviews, sessions and events down by a property', async () => {
    const pv = await stats({ metrics: 'pageviews', by: 'prop:plan' }).expect(200);
    expect(rowsOf(pv.body, 'pageviews')).toEqual({ pro: 2, free: 1, '(none)': 1 });
    expect(pv.body.source).toBe('raw');
    const sessions = await stats({ metrics: 'sessions', by: 'prop:plan' }).expect(200);
    expect(rowsOf(sessions.body, 'sessions')).toEqual({ pro: 1, free: 1, '(none)': 1 });
    const events = await stats({ metrics: 'events', by: 'prop:plan' }).expect(200);
    expect(rowsOf(events.body, 'events')).toEqual({ free: 2, pro: 1 });
  });

  it('filters by a property (where.prop:<key>), keys with spaces and case as sent', async () => {
    const pro = await stats({ metrics: 'pageviews', 'where.prop:plan': 'pro' }).expect(200);
    expect(pro.body.totals.pageviews).toBe(2);
    const team = await stats({ metrics: 'pageviews', 'where.prop:Team size': 'small' }).expect(200);
    expect(team.body.totals.pageviews).toBe(1);
    const lower = await stats({ metrics: 'pageviews', 'where.prop:team size': 'small' }).expect(200);
    expect(lower.body.totals.pageviews).toBe(0);
    const byEvent = await t.request
      .post(`/v1/sites/${site.siteId}/stats/query`)
      .set('Authorization', site.auth)
      .send({ metrics: 'events', by: 'event', days: 1, where: { 'prop:plan': 'free' } })
      .expect(200);
    expect(rowsOf(byEvent.body, 'events')).toEqual({ signup: 2 });
  });

  it('filters the summary and a top table by a property too', async () => {
    const summary = await t.request
      .get(`/v1/sites/${site.siteId}/summary`)
      .query({ days: 1, 'where.prop:plan': 'pro' })
      .set('Authorization', site.auth)
      .expect(200);
    expect(summary.body.measures.pageviews.value).toBe(2);
    const top = await t.request
      .get(`/v1/sites/${site.siteId}/top/event`)
      .query({ days: 1, 'where.prop:plan': 'free' })
      .set('Authorization', site.auth)
      .expect(200);
    expect(top.body.rows.map((r: { value: string }) => r.value)).toEqual(['signup']);
  });

  it('refuses a key a property cannot have, naming the field', async () => {
    const bad = await stats({ metrics: 'pageviews', by: "prop:plan'--" }).expect(400);
    expect(bad.body.field).toBe('by');
    const where = await stats({ metrics: 'pageviews', 'where.prop:': 'x' }).expect(400);
    expect(where.body.field).toBe('where.prop:');
    const requests = await stats({ metrics: 'requests', by: 'prop:plan' }).expect(400);
    expect(requests.body.field).toBe('by');
    expect(requests.body.title).toMatch(/pageviews, sessions and events/);
  });

  it('answers properties only within the raw 90 days', async () => {
    const old = await stats({ metrics: 'pageviews', by: 'prop:plan', days: 120 }).expect(400);
    expect(old.body.field).toBe('by');
    expect(old.body.title).toMatch(/only possible within the last 90 days/);
    const filtered = await stats({ metrics: 'sessions', by: 'page', 'where.prop:plan': 'pro', days: 200 }).expect(400);
    expect(filtered.body.field).toBe('where.prop:plan');
  });

  it('lists the keys seen in the last 30 days, the most used first, each site its own', async () => {
    const res = await t.request.get(`/v1/sites/${site.siteId}/properties`).set('Authorization', site.auth).expect(200);
    expect(res.body.keys).toEqual([
      { key: 'plan', pageviews: 3, events: 3 },
      { key: 'Team size', pageviews: 1, events: 0 },
    ]);
    expect(res.body).toMatchObject({ truncated: false, kept: [], to: expect.any(String) });
    const theirs = await t.request.get(`/v1/sites/${other.siteId}/properties`).set('Authorization', other.auth).expect(200);
    expect(theirs.body.keys.map((k: { key: string }) => k.key).sort()).toEqual(['plan', 'secret']);
    await t.request.get(`/v1/sites/${other.siteId}/properties`).set('Authorization', site.auth).expect(404);
  });

  it('keeps up to 10 property keys as a site setting, refusing an 11th or a bad key by field', async () => {
    const settings = `/v1/sites/${site.siteId}/settings`;
    const ok = await t.request
      .patch(settings)
      .set('Authorization', site.auth)
      .send({ keptProperties: [' plan ', 'plan'] });
    expect(ok.status).toBe(200);
    const keys = await t.request.get(`/v1/sites/${site.siteId}/properties`).set('Authorization', site.auth).expect(200);
    expect(keys.body.kept).toEqual(['plan']);
    const many = Array.from({ length: 11 }, (_, i) => `k${i}`);
    const tooMany = await t.request.patch(settings).set('Authorization', site.auth).send({ keptProperties: many }).expect(400);
    expect(tooMany.body.field).toBe('keptProperties');
    const bad = await t.request
      .patch(settings)
      .set('Authorization', site.auth)
      .send({ keptProperties: ['a/b'] })
      .expect(400);
    expect(bad.body.field).toBe('keptProperties[0]');
  });

  it('names the prop:<key> pattern in the catalogue', async () => {
    const res = await t.request.get('/v1/stats/catalogue').set('Authorization', site.auth).expect(200);
    expect(res.body.dimensionPatterns).toEqual([
      expect.objectContaining({ pattern: 'prop:<key>', metricSets: ['pageviews', 'sessions', 'events'] }),
    ]);
  });
});
