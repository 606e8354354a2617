import { randomBytes, randomUUID } from 'node:crypto';
import { eventRow, type PageviewRow, pageviewRow, type RequestRow, requestRow, SiteHostname } from '@us/db';
import { PLAN_LIMITS, type Plan } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countingInserter, monthOf, noticeRetry, usageOf } from '../../../src/features/billing/usage-counters.ts';
import { requestLoggingPaused } from '../../../src/features/billing/usage-pause.ts';
import { createKeyRow } from '../../../src/features/site-keys/keys.ts';
import { mailsTo } from '../../support/auth-helpers.ts';
import { createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 usage-test';
const FREE = PLAN_LIMITS.Free;

describe('allowances: usage counters, the Free pause and notices', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** A workspace (owner e-mail), its site with a hostname, public and secret key. */
  async function workspaceWithSite(plan: Plan = 'Free') {
    const u = await createUser(t.deps, { plan });
    const em = t.deps.orm.em.fork();
    const host = `u${randomBytes(4).toString('hex')}.example`;
    const { site, publicKey } = await createSite(em, { workspace: u.workspace.id, name: 'Usage' });
    em.create(SiteHostname, { site, hostname: host, verifyToken: 'a'.repeat(32) });
    await em.flush();
    const pk = publicKey;
    const sk = createKeyRow(em, site.id, 'secret').value;
    await em.flush();
    return { workspaceId: u.workspace.id, email: u.email, siteId: site.id, host, pk, sk };
  }

  const usage = (workspaceId: string) => usageOf(t.deps.orm.em.fork(), workspaceId, new Date());

  const setUsage = (workspaceId: string, values: { pageviews?: number; requests?: number }) =>
    t.deps.orm.em.getConnection().execute(
      `insert into usage_months (workspace_id, month, pageviews, requests) values (?, ?::date, ?, ?)
         on conflict (workspace_id, month) do update set pageviews = excluded.pageviews, requests = excluded.requests`,
      [workspaceId, monthOf(new Date()), values.pageviews ?? 0, values.requests ?? 0],
      'run',
    );

  // With row ids, as the buffer gives them: a retried batch must insert and count nothing.
  const pv = (siteId: string, lane: PageviewRow['lane'] = 'human') => pageviewRow(siteId, new Date(), { id: randomUUID(), lane });
  const req = (siteId: string, lane: RequestRow['lane'] = 'bot') =>
    requestRow(siteId, new Date(), { id: randomUUID(), lane, kind: lane === 'bot' ? 'bot' : 'browser' });

  const batch = (pk: string, path: string, n = 1) => ({
    k: pk,
    records: Array.from({ length: n }, () => ({
      at: Date.now(),
      method: 'GET',
      path,
      status: 200,
      ms: 3,
      ip: '203.0.113.9',
      ua: UA,
    })),
  });
  const storedRequests = async (siteId: string, path: string) =>
    (
      (await t.deps.orm.em
        .fork()
        .execute('select count(*)::int as n from requests where site_id = ? and path = ?', [siteId, path])) as { n: number }[]
    )[0]?.n;

  async function mailsFor(email: string, atLeast: number) {
    await vi.waitFor(() => expect(mailsTo(t, email).length).toBeGreaterThanOrEqual(atLeast), { timeout: 10_000 });
    return mailsTo(t, email);
  }

  it('counts human pageviews and every request, not bot or internal pageviews, and a retried batch once', async () => {
    const w = await workspaceWithSite();
    const insert = countingInserter({ orm: t.deps.orm });
    const pvs = [pv(w.siteId), pv(w.siteId), pv(w.siteId, 'bot'), pv(w.siteId, 'internal')];
    expect(await insert('pageviews', pvs)).toBe(4);
    const reqs = [req(w.siteId), req(w.siteId, 'human'), req(w.siteId, 'internal')];
    expect(await insert('requests', reqs)).toBe(3);
    expect(await usage(w.workspaceId)).toMatchObject({ plan: 'Free', pageviews: 2, requests: 3, paused: false });
    // The same rows again (a retried batch): nothing inserted, nothing counted.
    expect(await insert('pageviews', pvs)).toBe(0);
    expect(await insert('requests', reqs)).toBe(0);
    // Events and leaves count nothing.
    await insert('events', [eventRow(w.siteId, new Date(), { id: randomUUID() })]);
    expect(await usage(w.workspaceId)).toMatchObject({
      month: monthOf(new Date()),
      pageviews: 2,
      requests: 3,
      limits: { pageviews: FREE.humanPageviewsPerMonth, requests: FREE.serverRequestsPerMonth },
    });
    // Through the ingest buffer and flusher (the server's path), including a partly repeated batch.
    const again = pv(w.siteId);
    await t.deps.ingest.enqueue('pageviews', again);
    await t.deps.ingest.enqueue('pageviews', pvs[0] as PageviewRow);
    await t.deps.ingest.flushNow();
    expect((await usage(w.workspaceId)).pageviews).toBe(3);
  });

  it('counts across the sites of a workspace, per workspace', async () => {
    const w = await workspaceWithSite();
    const other = await workspaceWithSite();
    const em = t.deps.orm.em.fork();
    const second = (await createSite(em, { workspace: w.workspaceId, name: 'Second' })).site;
    await em.flush();
    const insert = countingInserter({ orm: t.deps.orm });
    await insert('pageviews', [pv(w.siteId), pv(second.id), pv(other.siteId)]);
    expect((await usage(w.workspaceId)).pageviews).toBe(2);
    expect((await usage(other.workspaceId)).pageviews).toBe(1);
  });

  it('Free over 150% of server requests: /collect/requests answers 202, paused, stores nothing; pageviews still count', async () => {
    const w = await workspaceWithSite();
    await setUsage(w.workspaceId, { requests: FREE.serverRequestsPerMonth * 1.5 });
    expect((await usage(w.workspaceId)).paused).toBe(true);
    const res = await t.request
      .post('/collect/requests')
      .set('x-svc-proxy', w.sk)
      .send(batch(w.pk, '/paused', 3))
      .expect(202);
    expect(res.headers['x-svc-logging']).toBe('paused');
    // A wrong secret is still refused.
    await t.request
      .post('/collect/requests')
      .set('x-svc-proxy', 'sk_live_wrongwrongwrongwrongwrongwrong12')
      .send(batch(w.pk, '/paused'))
      .expect(401);
    await t.deps.ingest.flushNow();
    expect(await storedRequests(w.siteId, '/paused')).toBe(0);
    expect((await usage(w.workspaceId)).requests).toBe(FREE.serverRequestsPerMonth * 1.5);

    // Pageviews keep counting.
    const report = {
      t: 'pv',
      k: w.pk,
      u: `https://${w.host}/pricing`,
      id: randomBytes(8).toString('hex'),
      r: '',
      w: 1280,
      l: 'en-GB',
      z: 'Europe/London',
      n: 1,
    };
    await t.request
      .post('/collect')
      .set('Content-Type', 'text/plain')
      .set('Origin', `https://${w.host}`)
      .set('User-Agent', UA)
      .send(JSON.stringify(report))
      .expect(202);
    await t.deps.ingest.flushNow();
    expect((await usage(w.workspaceId)).pageviews).toBe(1);

    // The pause belongs to its month: the next month starts unpaused.
    const next = new Date();
    next.setUTCMonth(next.getUTCMonth() + 1, 1);
    expect(await requestLoggingPaused(t.deps.orm, w.workspaceId, next)).toBe(false);
  });

  // A paused workspace that started paying had its records dropped for up to a minute on every node (the answer cached).
  it('a paused Free workspace that moves to a paid plan is stored again within seconds on this node', async () => {
    const w = await workspaceWithSite();
    await setUsage(w.workspaceId, { requests: FREE.serverRequestsPerMonth * 1.5 });
    const send = (path: string) =>
      t.request.post('/collect/requests').set('x-svc-proxy', w.sk).send(batch(w.pk, path)).expect(202);
    expect((await send('/before')).headers['x-svc-logging']).toBe('paused');
    // The payment provider's webhook changes the plan (on whichever node it reaches).
    await t.deps.orm.em.fork().execute(`update workspaces set plan = 'Starter' where id = ?`, [w.workspaceId]);
    await expect
      .poll(async () => (await send('/after')).headers['x-svc-logging'] ?? 'logging', { timeout: 10_000, interval: 500 })
      .toBe('logging');
    await t.deps.ingest.flushNow();
    expect(await storedRequests(w.siteId, '/after')).toBeGreaterThan(0);
    expect(await storedRequests(w.siteId, '/before')).toBe(0);
  });

  it('Free under 150% keeps logging; paid plans never pause', async () => {
    const free = await workspaceWithSite();
    await setUsage(free.workspaceId, { requests: FREE.serverRequestsPerMonth * 1.5 - 1 });
    const ok = await t.request.post('/collect/requests').set('x-svc-proxy', free.sk).send(batch(free.pk, '/free')).expect(202);
    expect(ok.headers['x-svc-logging']).toBeUndefined();

    const paid = await workspaceWithSite('Starter');
    await setUsage(paid.workspaceId, { requests: PLAN_LIMITS.Starter.serverRequestsPerMonth * 3 });
    expect((await usage(paid.workspaceId)).paused).toBe(false);
    const res = await t.request
      .post('/collect/requests')
      .set('x-svc-proxy', paid.sk)
      .send(batch(paid.pk, '/paid', 2))
      .expect(202);
    expect(res.headers['x-svc-logging']).toBeUndefined();
    await t.deps.ingest.flushNow();
    expect(await storedRequests(paid.siteId, '/paid')).toBe(2);
    expect(await storedRequests(free.siteId, '/free')).toBe(1);
    expect((await usage(paid.workspaceId)).requests).toBe(PLAN_LIMITS.Starter.serverRequestsPerMonth * 3 + 2);
  });

  // A batch whose answer was lost (or came past the SDK's 10 s) is sent again: its records were stored and counted
  // twice. With the batch's id they are stored and counted once; a batch of the same records without one is new.
  it('stores and counts a batch sent twice with its id once', async () => {
    const w = await workspaceWithSite('Starter');
    const sent = { ...batch(w.pk, '/twice', 3), b: 'b4a7e0f2-91c3-4c1e-9f5d-2a6b8c0d1e3f' };
    for (let i = 0; i < 2; i++) await t.request.post('/collect/requests').set('x-svc-proxy', w.sk).send(sent).expect(202);
    await t.deps.ingest.flushNow();
    expect(await storedRequests(w.siteId, '/twice')).toBe(3);
    expect((await usage(w.workspaceId)).requests).toBe(3);
    // The same id on another site is that site's own batch.
    const other = await workspaceWithSite('Starter');
    await t.request
      .post('/collect/requests')
      .set('x-svc-proxy', other.sk)
      .send({ ...sent, k: other.pk })
      .expect(202);
    await t.deps.ingest.flushNow();
    expect(await storedRequests(other.siteId, '/twice')).toBe(3);
    // A bad id is refused with its field.
    const bad = await t.request
      .post('/collect/requests')
      .set('x-svc-proxy', w.sk)
      .send({ ...sent, b: 'no spaces allowed' })
      .expect(400);
    expect(bad.body.field).toBe('b');
  });

  it('mails Free owners at 80% and 100% of each allowance, once per month', async () => {
    const w = await workspaceWithSite();
    await setUsage(w.workspaceId, {
      pageviews: FREE.humanPageviewsPerMonth * 0.8 - 1,
      requests: FREE.serverRequestsPerMonth * 0.8 - 1,
    });
    await t.deps.ingest.enqueue('pageviews', pv(w.siteId));
    await t.deps.ingest.flushNow();
    let mails = await mailsFor(w.email, 1);
    expect(mails.map((m) => m.subject)).toEqual(['Test workspace used 80% of its Free human pageviews allowance']);
    expect(mails[0]?.text).toContain('80,000 of its 100,000 human pageviews');

    // More pageviews: no second 80% notice.
    await t.deps.ingest.enqueue('pageviews', pv(w.siteId));
    await t.deps.ingest.enqueue('pageviews', pv(w.siteId, 'bot'));
    await t.deps.ingest.flushNow();
    // Requests cross 80% (bot requests count too).
    await t.deps.ingest.enqueue('requests', req(w.siteId));
    await t.deps.ingest.flushNow();
    mails = await mailsFor(w.email, 2);
    expect(mails.map((m) => m.subject)).toEqual([
      'Test workspace used 80% of its Free human pageviews allowance',
      'Test workspace used 80% of its Free server requests allowance',
    ]);

    // 100% of pageviews.
    await setUsage(w.workspaceId, { pageviews: FREE.humanPageviewsPerMonth - 1, requests: FREE.serverRequestsPerMonth * 0.8 });
    await t.deps.ingest.enqueue('pageviews', pv(w.siteId));
    await t.deps.ingest.flushNow();
    await t.deps.ingest.enqueue('pageviews', pv(w.siteId));
    await t.deps.ingest.flushNow();
    mails = await mailsFor(w.email, 3);
    // Both pageviews were counted, and a flush returns only after the notices its insert made due were sent
    // (countingInserter awaits them): a second 100% notice would be here by now.
    expect((await usage(w.workspaceId)).pageviews).toBe(FREE.humanPageviewsPerMonth + 1);
    expect(mailsTo(t, w.email).map((m) => m.subject)).toEqual([
      'Test workspace used 80% of its Free human pageviews allowance',
      'Test workspace used 80% of its Free server requests allowance',
      'Test workspace reached its Free human pageviews allowance',
    ]);
    expect((await usage(w.workspaceId)).notified.sort()).toEqual(['pageviews:100', 'pageviews:80', 'requests:80']);
  });

  // The fault: a mail server that takes the connection and never answers. The flush that made a notice due waited on
  // it, and every table's flush on the node waited behind that one: the buffer filled and reports were refused.
  it('a notice whose mail server hangs holds the flush a few seconds at most', { timeout: 30_000 }, async () => {
    const w = await workspaceWithSite();
    const other = await workspaceWithSite('Growth');
    await setUsage(w.workspaceId, { pageviews: FREE.humanPageviewsPerMonth * 0.8 - 1, requests: 0 });
    const hung = vi.spyOn(t.deps.mailer, 'send').mockImplementation(() => new Promise<void>(() => {}));
    try {
      await t.deps.ingest.enqueue('pageviews', pv(w.siteId));
      await t.deps.ingest.flushNow();
      expect((await usage(w.workspaceId)).pageviews).toBe(FREE.humanPageviewsPerMonth * 0.8);
      expect(hung).toHaveBeenCalled();
      // The next flush, another workspace's, goes through.
      await t.deps.ingest.enqueue('pageviews', pv(other.siteId));
      await t.deps.ingest.flushNow();
      expect((await usage(other.workspaceId)).pageviews).toBe(1);
    } finally {
      hung.mockRestore();
    }
  });

  // The fault: the owner's mail server turned the notice away (451, "try again later"). The month's tag was claimed
  // before the mail went and stayed claimed, so the owner never heard of it that month.
  it("a notice every owner's mail server turned away goes at a later flush, after a pause that doubles", async () => {
    const w = await workspaceWithSite();
    await setUsage(w.workspaceId, { pageviews: FREE.humanPageviewsPerMonth * 0.8 - 1, requests: 0 });
    const address = w.email.toLowerCase();
    const send = vi.spyOn(t.deps.mailer, 'send');
    const tries = () => send.mock.calls.filter(([m]) => m.to.toLowerCase() === address).length;
    let now = Date.now();
    const clock = noticeRetry.now;
    noticeRetry.now = () => now;
    const flushOne = async () => {
      await t.deps.ingest.enqueue('pageviews', pv(w.siteId));
      await t.deps.ingest.flushNow();
    };
    t.smtp.refused.add(address);
    try {
      await flushOne();
      // The flush waits for the notice a few seconds at most (countingInserter): it was tried, turned away, and its
      // claim given back.
      const givenBack = async (n: number) => {
        await vi.waitFor(async () => {
          expect(tries()).toBe(n);
          expect((await usage(w.workspaceId)).notified).toEqual([]);
        });
      };
      await givenBack(1);
      // Within the pause, flushes that count more do not try again (a failing server is not asked at every flush).
      await flushOne();
      expect(tries()).toBe(1);
      now += noticeRetry.firstMs;
      await flushOne();
      await givenBack(2);
      // Turned away twice: the pause is twice as long.
      now += noticeRetry.firstMs;
      await flushOne();
      expect(tries()).toBe(2);
      t.smtp.refused.delete(address);
      now += noticeRetry.firstMs;
      await flushOne();
      const mails = await mailsFor(w.email, 1);
      expect(tries()).toBe(3);
      expect(mails.map((m) => m.subject)).toEqual(['Test workspace used 80% of its Free human pageviews allowance']);
      expect((await usage(w.workspaceId)).notified).toEqual(['pageviews:80']);
      // Sent: once for the month, as any notice.
      now += noticeRetry.maxMs;
      await flushOne();
      expect(tries()).toBe(3);
      expect((await usage(w.workspaceId)).pageviews).toBe(FREE.humanPageviewsPerMonth * 0.8 + 5);
    } finally {
      t.smtp.refused.delete(address);
      noticeRetry.now = clock;
      send.mockRestore();
    }
  });

  it('sends no notices on paid plans', async () => {
    const w = await workspaceWithSite('Growth');
    await setUsage(w.workspaceId, { pageviews: PLAN_LIMITS.Growth.humanPageviewsPerMonth, requests: 0 });
    await t.deps.ingest.enqueue('pageviews', pv(w.siteId));
    await t.deps.ingest.flushNow();
    // Counted, and the flush returned after its notices step: a notice would have been sent by now.
    expect((await usage(w.workspaceId)).pageviews).toBe(PLAN_LIMITS.Growth.humanPageviewsPerMonth + 1);
    expect(mailsTo(t, w.email)).toEqual([]);
    expect((await usage(w.workspaceId)).notified).toEqual([]);
  });
});
