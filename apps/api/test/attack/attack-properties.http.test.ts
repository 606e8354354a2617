import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, pageReport, postReport } from '../support/collect.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Attacks through custom properties (issue 40 item 2), over HTTP as a stranger would send them: a report with
 * 10,000 properties and values of a megabyte, as many tiny ones as the body limit lets through, poison keys
 * and values, and a key that tries to leave its SQL literal. Each is bounded (refused by the body limit or
 * dropped), no answer is a 5xx, and another site's pageviews are still counted.
 */
const pvid = () => randomBytes(8).toString('hex');

describe('attacks through custom properties', () => {
  let t: TestServer;
  let attacker: CollectSite;
  let bystander: CollectSite;

  beforeAll(async () => {
    t = await startTestServer();
    attacker = await collectSite(t, 'props-attacker.example', ['analytics:read']);
    bystander = await collectSite(t, 'props-bystander.example');
  });
  afterAll(() => t.close());

  const propsOf = async (siteId: string, id: string) => {
    const [row] = await t.deps.orm.em
      .fork()
      .execute<{ props: Record<string, string> | null }[]>('select props from pageviews where site_id = ? and pageview_id = ?', [
        siteId,
        id,
      ]);
    return row;
  };

  async function bystanderStillCounted() {
    const id = pvid();
    await postReport(t, bystander, { extra: { id, pr: { plan: 'pro' } } }).expect(202);
    await t.deps.ingest.flushNow();
    expect(await propsOf(bystander.siteId, id)).toEqual({ props: { plan: 'pro' } });
  }

  it('10,000 properties with values of 1 MB are refused by the body limit (413), nothing stored', async () => {
    const id = pvid();
    const mb = 'v'.repeat(1024 * 1024);
    const pr: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) pr[`k${i}`] = i < 3 ? mb : 'x';
    const res = await t.request
      .post('/collect')
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(pageReport(attacker, { id, pr })));
    expect(res.status).toBe(413);
    await bystanderStillCounted();
    expect(await propsOf(attacker.siteId, id)).toBeUndefined();
  });

  it('as many tiny properties as the body limit lets through: the pageview counts, 30 are kept', async () => {
    const id = pvid();
    const pr = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`${i}`, 1]));
    await postReport(t, attacker, { extra: { id, pr } }).expect(202);
    await bystanderStillCounted();
    expect(Object.keys((await propsOf(attacker.siteId, id))?.props ?? {})).toHaveLength(30);
  });

  it('poison keys and values (NUL, lone surrogates, __proto__, quotes) are dropped or stored cleaned', async () => {
    const id = pvid();
    const body = `${JSON.stringify(pageReport(attacker, { id })).slice(0, -1)},"pr":{"__proto__":"polluted","a\\u0000b":"x","note":"fi\\u0000ne\\ud800","it's":"q","ok":"a'); drop table pageviews; --"}}`;
    await t.request.post('/collect').set('Content-Type', 'text/plain').send(body).expect(202);
    await bystanderStillCounted();
    const row = await propsOf(attacker.siteId, id);
    // `__proto__` is a key like any other here: stored as one, never a prototype (JSON.parse makes it a key too).
    expect(row?.props).toEqual(JSON.parse(`{"__proto__":"polluted","note":"fine","ok":"a'); drop table pageviews; --"}`));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a property key that tries to leave its SQL literal is refused before any SQL (400 naming the field)', async () => {
    for (const by of ["prop:x') or true --", 'prop:x\\', `prop:${'k'.repeat(65)}`]) {
      const res = await t.request
        .get(`/v1/sites/${attacker.siteId}/stats`)
        .query({ metrics: 'pageviews', days: 1, by })
        .set('Authorization', attacker.auth);
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('by');
    }
    await bystanderStillCounted();
  });
});
