import { randomBytes } from 'node:crypto';
import { type EventRow, eventRow, insertRows, pageviewRow, SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { usageOf } from '../../../src/features/billing/usage-counters.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 clicks-test';

/** Element clicks (`t: 'c'`) and `data-journeys="off"` (`j: 1`) at the collect endpoint. */
describe('POST /collect: element clicks and journeys=off', () => {
  let t: TestServer;
  let siteId: string;
  let workspaceId: string;
  let pk: string;
  let auth: string;
  const host = 'clicks.example';
  const pvid = () => randomBytes(8).toString('hex');

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'analytics:read'],
    });
    auth = `Bearer ${token}`;
    const em = t.deps.orm.em.fork();
    const { site, publicKey } = await createSite(em, { workspace: workspace.id, name: 'Clicks' });
    em.create(SiteHostname, { site, hostname: host, verifyToken: 'a'.repeat(32) });
    await em.flush();
    siteId = site.id;
    pk = publicKey;
  });
  afterAll(() => t.close());

  const base = (id: string) => ({ k: pk, u: `https://${host}/pricing`, id });
  const pv = (id: string, extra: Record<string, unknown> = {}) => ({
    ...base(id),
    t: 'pv',
    r: '',
    w: 1280,
    l: 'en',
    z: 'UTC',
    n: 1,
    ...extra,
  });
  const click = (id: string, e: unknown) => ({ ...base(id), t: 'c', e });
  const post = (body: unknown) =>
    t.request
      .post('/collect')
      .set('Content-Type', 'text/plain')
      .set('Origin', `https://${host}`)
      .set('User-Agent', UA)
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  const query = <T>(sql: string, params: unknown[] = []) => t.deps.orm.em.fork().execute(sql, params) as Promise<T[]>;
  const clicksOf = (id: string) =>
    query<{ name: string; kind: string }>(
      `select name, kind from events where site_id = ? and pageview_id = ? and kind = 'click' order by at, name`,
      [siteId, id],
    );
  const get = async (path: string) => (await t.request.get(path).set('Authorization', auth).expect(200)).body;

  it('stores a pageview with j: 1 as journeys = false, and the summary still counts it', async () => {
    const before = (await get(`/v1/sites/${siteId}/summary?days=1`)).measures.pageviews.value as number;
    const off = pvid();
    const on = pvid();
    await post(pv(off, { j: 1 })).expect(202);
    await post(pv(on)).expect(202);
    await t.deps.ingest.flushNow();
    const rows = await query<{ pageview_id: string; journeys: boolean }>(
      'select pageview_id, journeys from pageviews where site_id = ? and pageview_id in (?, ?)',
      [siteId, off, on],
    );
    expect(Object.fromEntries(rows.map((r) => [r.pageview_id, r.journeys]))).toEqual({ [off]: false, [on]: true });
    const after = (await get(`/v1/sites/${siteId}/summary?days=1`)).measures.pageviews.value as number;
    expect(after).toBe(before + 2);
  });

  it('a pageview row buffered without journeys (an older version) is stored with journeys = true', async () => {
    const row = (pageviewId: string, journeys?: unknown) =>
      pageviewRow(siteId, new Date(), {
        pageviewId,
        visitor: 'v',
        path: '/old',
        ...(journeys === undefined ? {} : { journeys: journeys as boolean }),
      });
    const [a, b, c] = [pvid(), pvid(), pvid()];
    await insertRows(t.deps.orm, 'pageviews', [row(a), row(b, 'no'), row(c, false)]);
    const rows = await query<{ pageview_id: string; journeys: boolean }>(
      'select pageview_id, journeys from pageviews where site_id = ? and pageview_id in (?, ?, ?)',
      [siteId, a, b, c],
    );
    expect(Object.fromEntries(rows.map((r) => [r.pageview_id, r.journeys]))).toEqual({ [a]: true, [b]: true, [c]: false });
  });

  it('refuses j other than 1 with 400 naming the field', async () => {
    for (const j of [0, 2, true, 'off']) {
      const res = await post(pv(pvid(), { j })).expect(400);
      expect(JSON.parse(res.text)).toMatchObject({ status: 400, field: 'j' });
    }
  });

  it('stores a click as an event of kind click named by its label, cleaned and cut at the door', async () => {
    const id = pvid();
    await post(pv(id)).expect(202);
    await post(click(id, '  signup-cta  ')).expect(202);
    await post(click(id, 'out:\u0000docs.example\u0007')).expect(202);
    await post(click(id, `/${'a'.repeat(500)}`)).expect(202);
    await post(click(id, 'button:\n    Buy\t\u00a0 now\n  ')).expect(202);
    await t.deps.ingest.flushNow();
    const names = (await clicksOf(id)).map((r) => r.name).sort();
    expect(names).toEqual([`/${'a'.repeat(127)}`, 'button: Buy now', 'out:docs.example', 'signup-cta']);
  });

  it('refuses a click without a usable label, an overlong one and an unknown report type, 400 with the field', async () => {
    const id = pvid();
    const cases: [unknown, string][] = [
      [click(id, ''), 'e'],
      [click(id, '  \u0000\u001f '), 'e'],
      [click(id, 42), 'e'],
      [click(id, 'x'.repeat(2049)), 'e'],
      [{ ...base(id), t: 'c' }, 'e'],
      [{ ...base(id), t: 'click', e: 'x' }, 't'],
      [{ ...click(id, 'x'), id: 'no' }, 'id'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body).expect(400);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      expect(JSON.parse(res.text)).toMatchObject({ status: 400, field });
    }
    await t.deps.ingest.flushNow();
    expect(await clicksOf(id)).toEqual([]);
  });

  it('a bad click in a stream of reports costs only itself', async () => {
    const id = pvid();
    const stream = [
      pv(id),
      click(id, 'a'),
      click(id, '\u0000'),
      click(id, 'b'),
      { ...base(id), t: 'leave', s: 50, d: 1000, i: 1 },
    ];
    const statuses: number[] = [];
    for (const r of stream) statuses.push((await post(r)).status);
    expect(statuses).toEqual([202, 202, 400, 202, 202]);
    await t.deps.ingest.flushNow();
    expect((await clicksOf(id)).map((r) => r.name).sort()).toEqual(['a', 'b']);
    const leaves = await query('select 1 from page_leaves where site_id = ? and pageview_id = ?', [siteId, id]);
    expect(leaves.length).toBe(1);
  });

  it('clicks change no events figure, no top table and no usage', async () => {
    const figures = async () => ({
      events: await get(`/v1/sites/${siteId}/stats?metrics=events&by=kind&days=1`),
      top: await get(`/v1/sites/${siteId}/top/event?days=1`),
      summary: (await get(`/v1/sites/${siteId}/summary?days=1`)).measures,
      usage: await usageOf(t.deps.orm.em.fork(), workspaceId, new Date()),
    });
    const id = pvid();
    await post(pv(id)).expect(202);
    await post({ ...base(id), t: 'ev', e: 'signup' }).expect(202);
    await t.deps.ingest.flushNow();
    const before = await figures();
    for (let i = 0; i < 5; i++) await post(click(id, `button:Buy ${i}`)).expect(202);
    await t.deps.ingest.flushNow();
    expect((await clicksOf(id)).length).toBe(5);
    const after = await figures();
    expect(after).toEqual(before);
    expect(after.events.rows.map((r: { value: string }) => r.value)).not.toContain('click');
  });

  it('rollups leave clicks out of the events counts', async () => {
    const at = new Date(Date.now() - 3 * 86_400_000);
    const row = (kind: EventRow['kind'], name: string) =>
      eventRow(siteId, at, { pageviewId: 'rollup-pageview', visitor: 'v', name, kind });
    await insertRows(t.deps.orm, 'events', [row('event', 'signup'), row('click', '/pricing'), row('click', 'out:x.example')]);
    await runRollups(t.deps.orm, { siteIds: [siteId], wait: true });
    const [total] = await query<{ count: number }>(
      `select count::int as count from daily_rollups
        where site_id = ? and day = ?::date and metric_set = 'events' and dimension = '' and lane = 'human'`,
      [siteId, at.toISOString().slice(0, 10)],
    );
    expect(total?.count).toBe(1);
    const kinds = await query<{ value: string }>(
      `select value from daily_rollups where site_id = ? and metric_set = 'events' and dimension = 'kind'`,
      [siteId],
    );
    expect(kinds.map((k) => k.value)).not.toContain('click');
  });
});
