import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_DECIDED, PROTECTION_OFF } from '../../../src/features/protection/record-decision.ts';
import { BROWSER_UA, pageReport } from '../../support/collect.ts';
import { type GateSite, gateSite, postRecords } from '../../support/gate.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
const CURL = 'curl/8.5.0';

/** Request records carry the gate's decision and the TLS summary; the reports read them back. */
describe('decisions with the traffic', () => {
  let t: TestServer;
  let site: GateSite;

  beforeAll(async () => {
    t = await startTestServer();
    site = await gateSite(t, 'gate-records.example', { mode: 'challenge' });
    await t.request
      .patch(`/v1/sites/${site.siteId}/settings`)
      .set('Authorization', site.auth)
      .send({ internalNetworks: ['10.0.0.0/8'] })
      .expect(200);
  });
  afterAll(() => t.close());

  const rows = async (siteId: string, table = 'requests') =>
    (await t.deps.orm.em.fork().execute(`select * from ${table} where site_id = ? order by path`, [siteId])) as Record<
      string,
      unknown
    >[];

  it('stores each record’s action, reason, risk and TLS summary; one bad record costs only itself', async () => {
    const res = await postRecords(t, site, [
      {
        path: '/a-deny',
        action: 'deny',
        reason: 'rule: No trainers',
        risk: -1,
        ua: GPTBOT,
        ip: '198.51.100.1',
        tls: 'TLSv1.3',
        tlsClass: 'modern',
      },
      { path: '/b-none', ua: BROWSER_UA, ip: '198.51.100.2' },
      { path: '/c-long', action: 'challenge', reason: `log: ${'x'.repeat(600)}`, risk: 60, ua: CURL, ip: '198.51.100.3' },
      { path: '/d-bad-action', action: 'block', ua: CURL },
      {
        path: '/e-junk-tls',
        action: 'allow',
        reason: 'browser: no sign of automation',
        risk: 0,
        tls: 'JA3=771,4865-4866',
        tlsClass: 't13d1516h2_8daaf6152771',
      },
      { path: '/f-bad-risk', action: 'allow', reason: 'x', risk: 101 },
      { path: '/g-tls-header-style', action: 'allow', reason: 'x', tls: 'tls 1.1', tlsClass: 'LEGACY' },
    ]).expect(202);
    expect(res.body).toMatchObject({ accepted: 5, refused: 2 });
    expect(res.body.examples.map((e: { field: string }) => e.field)).toEqual(['records[3].action', 'records[5].risk']);
    await t.deps.ingest.flushNow();
    const stored = await rows(site.siteId);
    expect(stored.map((r) => [r.path, r.decision, r.risk, r.tls])).toEqual([
      ['/a-deny', 'deny', -1, 'TLSv1.3 modern'],
      ['/b-none', 'allow', null, null],
      ['/c-long', 'challenge', 60, null],
      ['/e-junk-tls', 'allow', 0, 'unknown'],
      ['/g-tls-header-style', 'allow', null, 'TLSv1.1 legacy'],
    ]);
    expect(stored[0]?.reason).toBe('rule: No trainers');
    expect(stored[1]?.reason).toBe(NOT_DECIDED);
    expect(String(stored[2]?.reason)).toHaveLength(256);
  });

  it('a site whose protection is off stores every record as served, saying so', async () => {
    const off = await gateSite(t, 'gate-off.example', { mode: 'off' });
    await postRecords(t, off, [
      { path: '/x', action: 'deny', reason: 'rule: stale config', ua: CURL },
      { path: '/y', ua: BROWSER_UA },
    ]).expect(202);
    await t.deps.ingest.flushNow();
    expect((await rows(off.siteId)).map((r) => [r.path, r.decision, r.reason])).toEqual([
      ['/x', 'allow', PROTECTION_OFF],
      ['/y', 'allow', PROTECTION_OFF],
    ]);
  });

  it('pageviews get the TLS summary from x-svc-client-tls, honoured only with the site secret', async () => {
    const s = await gateSite(t, 'gate-pv-tls.example');
    const send = (headers: Record<string, string>, path: string) =>
      t.request
        .post('/collect')
        .set({ 'Content-Type': 'text/plain', 'User-Agent': BROWSER_UA, ...headers })
        .send(JSON.stringify(pageReport(s, { u: `https://${s.hostname}${path}` })))
        .expect(202);
    await send(
      { 'x-svc-proxy': s.secret, 'x-svc-client-ip': '198.51.100.40', 'x-svc-client-tls': 'TLSv1.3 modern' },
      '/with-secret',
    );
    await send({ 'x-svc-client-tls': 'TLSv1.3 modern' }, '/without-secret');
    await send({ 'x-svc-proxy': s.secret, 'x-svc-client-tls': 'ja4=t13d1516h2_8daaf6152771_e5627efa2ab1' }, '/fingerprint');
    await t.deps.ingest.flushNow();
    expect((await rows(s.siteId, 'pageviews')).map((r) => [r.path, r.tls])).toEqual([
      ['/fingerprint', 'unknown'],
      ['/with-secret', 'TLSv1.3 modern'],
      ['/without-secret', null],
    ]);
  });

  it('top/decision, by=decision and the decisions report show real figures; the team’s own traffic is left out', async () => {
    const s = await gateSite(t, 'gate-report.example', { mode: 'challenge' });
    await t.request
      .patch(`/v1/sites/${s.siteId}/settings`)
      .set('Authorization', s.auth)
      .send({ internalNetworks: ['10.0.0.0/8'] })
      .expect(200);
    // No wait for the collector to see the new internal networks: it has not looked this new site up yet, so
    // its first records below read the site as it is now.
    const gpt = { ua: GPTBOT, ip: '198.51.100.50', action: 'deny', reason: 'rule: No trainers', risk: -1 };
    const curl = {
      ua: CURL,
      ip: '198.51.100.51',
      action: 'challenge',
      reason: 'client software never runs page scripts: curl',
      risk: 50,
    };
    const person = { ua: BROWSER_UA, ip: '198.51.100.52', action: 'allow', reason: 'browser: no sign of automation', risk: 0 };
    await postRecords(t, s, [
      gpt,
      gpt,
      gpt,
      curl,
      curl,
      person,
      { ua: BROWSER_UA, ip: '198.51.100.53' },
      { ...person, ip: '10.1.2.3' }, // the team: not in the report
    ]).expect(202);
    await t.deps.ingest.flushNow();

    const report = await t.request
      .get(`/v1/sites/${s.siteId}/bot/decisions`)
      .query({ days: 1 })
      .set('Authorization', s.auth)
      .expect(200);
    const today = report.body.to;
    expect(report.body).toMatchObject({
      from: today,
      totals: { allow: 2, challenge: 2, deny: 3, total: 7 },
      series: [{ day: today, allow: 2, challenge: 2, deny: 3 }],
    });
    expect(report.body.byCategory).toEqual([
      { category: 'ai-training', allow: 0, challenge: 0, deny: 3 },
      { category: null, allow: 2, challenge: 0, deny: 0 },
      { category: 'tool', allow: 0, challenge: 2, deny: 0 },
    ]);
    expect(report.body.rows).toEqual([
      { action: 'deny', reason: 'rule: No trainers', kind: 'bot', category: 'ai-training', name: 'GPTBot', count: 3 },
      { action: 'challenge', reason: curl.reason, kind: 'browser', category: 'tool', name: 'curl', count: 2 },
      { action: 'allow', reason: person.reason, kind: 'browser', category: null, name: null, count: 1 },
      { action: 'allow', reason: NOT_DECIDED, kind: 'browser', category: null, name: null, count: 1 },
    ]);

    const top = await t.request
      .get(`/v1/sites/${s.siteId}/top/decision`)
      .query({ days: 1, lane: 'bot' })
      .set('Authorization', s.auth)
      .expect(200);
    expect(top.body.rows.map((r: { value: string; count: number }) => [r.value, r.count])).toEqual([
      ['deny', 3],
      ['challenge', 2],
    ]);
    const by = await t.request
      .get(`/v1/sites/${s.siteId}/stats`)
      .query({ metrics: 'requests', by: 'decision', lane: 'human', days: 1 })
      .set('Authorization', s.auth)
      .expect(200);
    expect(by.body.rows.map((r: { value: string; counts: { requests: number } }) => [r.value, r.counts.requests])).toEqual([
      ['allow', 2],
    ]);

    // The MCP tool answers like REST.
    const token = s.auth.replace(/^Bearer /, '');
    const mcp = await modernCall(t.url, token, 'tools/call', {
      name: 'get_site_bot_decisions',
      arguments: { id: s.siteId, days: 1 },
    });
    expect(mcp.body.result.structuredContent).toEqual(report.body);
  });

  it('the report refuses days outside 1-90 with 400 naming days', async () => {
    const res = await t.request.get(`/v1/sites/${site.siteId}/bot/decisions`).query({ days: 91 }).set('Authorization', site.auth);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('days');
  });
});
