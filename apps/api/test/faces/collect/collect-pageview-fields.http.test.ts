// Spec §1 "Recorded per pageview": the tab page counter as a number and the TLS summary of the connection
// that brought the report, as far as the service can know it honestly (never a stranger's claim).
import { proxyHeaders } from '@unseen-stats/edge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, postReport } from '../../support/collect.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

type Stored = { tab_page: number | null; session_start: boolean; tls: string | null };

/** The stored pageview of a report id, once the write buffer flushed it. */
async function storedPageview(t: TestServer, site: CollectSite, pageviewId: string): Promise<Stored | undefined> {
  await t.deps.ingest.flushNow();
  const [row] = await t.deps.orm.em
    .fork()
    .execute<Stored[]>('select tab_page, session_start, tls from pageviews where site_id = ? and pageview_id = ?', [
      site.siteId,
      pageviewId,
    ]);
  return row;
}

describe('POST /collect: the per-pageview fields of spec §1 (no proxy trusted)', () => {
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    t = await startTestServer();
    site = await collectSite(t, 'fields.example');
  });
  afterAll(() => t.close());

  /** Posts a pageview with `n` (and any headers) and answers its stored row. */
  async function pageview(extra: Record<string, unknown>, headers: Record<string, string> = {}) {
    const id = `pv${Math.random().toString(36).slice(2, 12)}`;
    const req = postReport(t, site, { extra: { id, ...extra } });
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    await req.expect(202);
    return storedPageview(t, site, id);
  }

  it('records the tab page counter as a number, 1 being where the visit began', async () => {
    expect(await pageview({ n: 1 })).toMatchObject({ tab_page: 1, session_start: true });
    expect(await pageview({ n: 7 })).toMatchObject({ tab_page: 7, session_start: false });
    expect(await pageview({ n: 10_000 })).toMatchObject({ tab_page: 10_000 });
  });

  it('stores a counter past 10,000 as unknown (null), never refusing the pageview', async () => {
    expect(await pageview({ n: 10_001 })).toMatchObject({ tab_page: null, session_start: false });
    expect(await pageview({ n: 100_000 })).toMatchObject({ tab_page: null });
  });

  it('leaves TLS unknown for a plain-http report that no trusted hop brought', async () => {
    expect(await pageview({})).toMatchObject({ tls: null });
  });

  it("ignores a stranger's X-Forwarded-Tls when no proxy is trusted (TRUST_PROXY off)", async () => {
    expect(await pageview({}, { 'X-Forwarded-Tls': 'TLSv1.0' })).toMatchObject({ tls: null });
  });

  it("records the TLS summary a proxying server vouches for with the site's secret (the edge SDK's proxyHeaders)", async () => {
    const headers = proxyHeaders({ secret: site.secret, clientIp: '198.51.100.7', tls: 'TLSv1.3' });
    expect(await pageview({}, headers)).toMatchObject({ tls: 'TLSv1.3' });
    // Without a valid secret the same header is a stranger's claim.
    const forged = { ...headers, 'x-svc-proxy': `sk_live_${'x'.repeat(32)}` };
    expect(await pageview({}, forged)).toMatchObject({ tls: null });
  });
});

describe('POST /collect behind a trusted hop (TRUST_PROXY=true)', () => {
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    site = await collectSite(t, 'fields-behind.example');
  });
  afterAll(() => t.close());

  it("records the TLS version the trusted hop negotiated (X-Forwarded-Tls), keeping only a known version's name", async () => {
    const id = 'pvbehind0001';
    await postReport(t, site, { extra: { id } }).set('X-Forwarded-Tls', 'tls1.2').expect(202);
    expect(await storedPageview(t, site, id)).toMatchObject({ tls: 'TLSv1.2' });
    const odd = 'pvbehind0002';
    await postReport(t, site, { extra: { id: odd } })
      .set('X-Forwarded-Tls', 't13d1516h2_8daaf6152771')
      .expect(202);
    expect(await storedPageview(t, site, odd)).toMatchObject({ tls: null });
  });
});
