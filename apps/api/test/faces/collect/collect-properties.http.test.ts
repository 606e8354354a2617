// Issue 40 item 2: custom properties of pageviews and events, cleaned and bounded at the door. What does not
// fit is dropped (the report still counts), the privacy guard drops values that look like e-mail addresses
// or long digit runs and counts them on /metrics, and a browser under Global Privacy Control is not recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, postReport } from '../../support/collect.ts';
import { parseMetrics, sampleValue } from '../../support/metrics.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

type Stored = { props: Record<string, string> | null };

const TOKEN = 'metrics-token-for-the-properties-test-0123';

describe('POST /collect: custom properties (pr)', () => {
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    t = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
    site = await collectSite(t, 'props.example');
  });
  afterAll(() => t.close());

  const newId = () => `pr${Math.random().toString(36).slice(2, 12)}`;

  async function stored(table: 'pageviews' | 'events', id: string): Promise<Stored | undefined> {
    await t.deps.ingest.flushNow();
    const [row] = await t.deps.orm.em
      .fork()
      .execute<Stored[]>(`select props from ${table} where site_id = ? and pageview_id = ?`, [site.siteId, id]);
    return row;
  }

  async function pageview(pr: unknown): Promise<Stored | undefined> {
    const id = newId();
    await postReport(t, site, { extra: { id, pr } }).expect(202);
    return stored('pageviews', id);
  }

  /** `us_properties_dropped_total` of a reason, as the operator's scrape of /metrics shows it. */
  async function dropped(reason: 'email' | 'digits' | 'limit'): Promise<number> {
    const res = await t.request.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    return sampleValue(parseMetrics(res.text), 'us_properties_dropped_total', { reason }) ?? 0;
  }

  it('stores a pageview’s properties as text, keys and values trimmed, the case of keys kept', async () => {
    const row = await pageview({ ' Plan ': ' pro ', seats: 12, trial: false, 'ab.test-1 x': 'b' });
    expect(row?.props).toEqual({ Plan: 'pro', seats: '12', trial: 'false', 'ab.test-1 x': 'b' });
  });

  it('stores an event’s properties beside its name', async () => {
    const id = newId();
    await postReport(t, site, { extra: { id, t: 'ev', e: 'signup', pr: { plan: 'team' } } }).expect(202);
    expect(await stored('events', id)).toEqual({ props: { plan: 'team' } });
  });

  // The fault: the schema counted the name before cleaning; the dashboard then listed a blank event or variant.
  it('refuses an event name or a variant with nothing visible once cleaned, naming the field', async () => {
    for (const e of ['\u0007', ' \t ', '\u0001 \u0002']) {
      const res = await postReport(t, site, { extra: { id: newId(), t: 'ev', e } }).expect(400);
      expect(res.body.field).toBe('e');
    }
    const res = await postReport(t, site, { extra: { id: newId(), x: { hero: '\u0001' } } }).expect(400);
    expect(res.body.field).toBe('x.hero');
  });

  it('keeps 30 properties and drops the rest, counting them; the pageview still counts', async () => {
    const before = await dropped('limit');
    const many = Object.fromEntries(Array.from({ length: 35 }, (_, i) => [`k${i}`, `v${i}`]));
    const row = await pageview(many);
    expect(Object.keys(row?.props ?? {})).toHaveLength(30);
    expect(row?.props?.k0).toBe('v0');
    expect(row?.props?.k30).toBeUndefined();
    expect((await dropped('limit')) - before).toBe(5);
  });

  it('drops a key over 64 characters or with other characters, a value over 256 or of another type', async () => {
    const before = await dropped('limit');
    const row = await pageview({
      ok: 'yes',
      ['k'.repeat(65)]: 'long key',
      'a/b': 'slash',
      long: 'v'.repeat(257),
      nested: { a: 1 },
      list: [1, 2],
      edge: 'v'.repeat(256),
      // Characters, not UTF-16 units: 256 emoji are 512 units.
      emoji: '😀'.repeat(256),
      emojiLong: '😀'.repeat(257),
    });
    expect(row?.props).toEqual({ ok: 'yes', edge: 'v'.repeat(256), emoji: '😀'.repeat(256) });
    expect((await dropped('limit')) - before).toBe(6);
  });

  it('stores no properties (null) when none is left, and refuses no report for a wrong shape', async () => {
    expect(await pageview({})).toEqual({ props: null });
    expect(await pageview('plan=pro')).toEqual({ props: null });
    expect(await pageview({ empty: '  ' })).toEqual({ props: null });
  });

  it('privacy guard: drops values that look like e-mail addresses or hold 9 digits in a row, and counts them', async () => {
    const [email, digits] = [await dropped('email'), await dropped('digits')];
    const row = await pageview({
      contact: 'jane.doe@example.com',
      card: '4111 1111 1111 1111 is fine? no: 4111111111111111',
      phone: '+33612345678',
      order: 'A-12345678',
      plan: 'pro',
    });
    expect(row?.props).toEqual({ order: 'A-12345678', plan: 'pro' });
    expect((await dropped('email')) - email).toBe(1);
    expect((await dropped('digits')) - digits).toBe(2);
  });

  it('reads the page script’s tag data (pd): data-prop-<key> as properties (pr over them), data-exp as exposures', async () => {
    const id = newId();
    const pd = { site: site.publicKey, exp: 'pricing:b, bad key:x', propPlan: 'free', propTeamSize: 'small', pageType: 'x' };
    await postReport(t, site, { extra: { id, pd, pr: { plan: 'team' } } }).expect(202);
    expect(await stored('pageviews', id)).toEqual({ props: { plan: 'team', teamSize: 'small' } });
    const [exposure] = await t.deps.orm.em
      .fork()
      .execute<{ experiment: string; variant: string }[]>(
        `select experiment, variant from events where site_id = ? and pageview_id = ? and kind = 'exposure'`,
        [site.siteId, id],
      );
    expect(exposure).toEqual({ experiment: 'pricing', variant: 'b' });
  });

  it('records nothing of a browser under Global Privacy Control, properties included', async () => {
    const id = newId();
    await postReport(t, site, { extra: { id, pr: { plan: 'pro' } } })
      .set('Sec-GPC', '1')
      .expect(204);
    expect(await stored('pageviews', id)).toBeUndefined();
  });
});
