import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTools } from '../../src/faces/mcp/tools.ts';
import { metricsServer } from '../../src/faces/metrics.ts';
import { listOperations } from '../../src/procedures/registry.ts';
import { appRouter } from '../../src/router.ts';
import { type CollectSite, collectSite, postReport } from '../support/collect.ts';
import { legacyInitialize, modernCall, postMcp } from '../support/mcp-http.ts';
import { has, parseMetrics, type Sample, sampleValue } from '../support/metrics.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'metrics-token-for-the-test-0123456789';
const tools = buildTools(listOperations(appRouter));
const opOf = (tool: string) => tools.get(tool)?.op.path as string;

describe('/metrics on the main port', () => {
  describe('with neither METRICS_TOKEN nor METRICS_PORT', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer();
    });
    afterAll(() => t?.close());

    it('answers 404 (not the dashboard), whatever the Authorization', async () => {
      const res = await t.request.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.text).not.toContain('us_http_requests_total');
    });
  });

  describe('with METRICS_TOKEN', () => {
    let t: TestServer;
    let site: CollectSite;
    const scrape = async (): Promise<Sample[]> => {
      const res = await t.request.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      return parseMetrics(res.text);
    };

    beforeAll(async () => {
      t = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
      site = await collectSite(t, 'metrics.example');
    });
    afterAll(() => t?.close());

    it('refuses a missing or wrong token with 401', async () => {
      const none = await t.request.get('/metrics').expect(401);
      expect(none.headers['www-authenticate']).toBe('Bearer');
      expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
      await t.request.get('/metrics').set('Authorization', `Bearer ${TOKEN}x`).expect(401);
      await t.request.get('/metrics').set('Authorization', TOKEN).expect(401);
    });

    it('shows page reports, a REST call and MCP calls counted and timed after they happened', async () => {
      const before = await scrape();
      for (let i = 0; i < 5; i++) await postReport(t, site).expect(202);
      await t.deps.ingest.flushNow();
      await t.request.get(`/v1/sites/${site.siteId}`).set('Authorization', site.auth).expect(200);
      const token = site.auth.replace(/^Bearer /, '');
      const direct = await modernCall(t.url, token, 'tools/call', { name: 'get_site', arguments: { id: site.siteId } });
      expect(direct.status).toBe(200);
      // An older client's call goes through the MCP SDK rather than the direct path: counted the same.
      const legacy = await legacyInitialize(t.url, token, '2025-06-18');
      const viaSdk = await postMcp(
        t.url,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_sites', arguments: {} } },
        legacy.headers,
      );
      expect(viaSdk.status).toBe(200);
      const after = await scrape();

      const moved = (name: string, labels: Record<string, string>) =>
        sampleValue(after, name, labels) - sampleValue(before, name, labels);
      const collect = { face: 'collect', operation: 'collect' };
      expect(moved('us_http_requests_total', { ...collect, status: '2xx' })).toBe(5);
      expect(moved('us_http_request_duration_seconds_count', collect)).toBe(5);
      expect(moved('us_http_request_duration_seconds_sum', collect)).toBeGreaterThan(0);
      expect(moved('us_ingest_stored_rows_total', { table: 'pageviews' })).toBeGreaterThanOrEqual(5);
      const rest = { face: 'rest', operation: opOf('get_site') };
      expect(moved('us_http_requests_total', { ...rest, status: '2xx' })).toBe(1);
      expect(moved('us_http_request_duration_seconds_count', rest)).toBe(1);
      expect(moved('us_http_requests_total', { face: 'mcp', operation: opOf('get_site'), status: '2xx' })).toBe(1);
      expect(moved('us_http_requests_total', { face: 'mcp', operation: opOf('list_sites'), status: '2xx' })).toBe(1);
      // The scrape before counts as a request of its own.
      expect(moved('us_http_requests_total', { face: 'metrics', operation: 'metrics', status: '2xx' })).toBeGreaterThanOrEqual(1);
    });

    it('reads the pools, the write buffer, the hot store and Node’s own figures at each scrape', async () => {
      const now = await scrape();
      for (const pool of ['main', 'stats']) {
        expect(has(now, 'us_db_pool_connections', { pool, state: 'busy' })).toBe(true);
        expect(sampleValue(now, 'us_db_pool_max', { pool })).toBeGreaterThan(0);
        expect(has(now, 'us_db_pool_waiting', { pool })).toBe(true);
        expect(has(now, 'us_db_pool_waits_total', { pool })).toBe(true);
      }
      for (const table of ['pageviews', 'page_leaves', 'events', 'requests']) {
        expect(has(now, 'us_ingest_backlog_rows', { table })).toBe(true);
      }
      expect(sampleValue(now, 'us_hot_store_up', { kind: t.deps.hot.kind })).toBe(1);
      expect(has(now, 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
      expect(now.some((s) => s.name.startsWith('nodejs_gc_duration_seconds'))).toBe(true);
      // Labels stay bounded: no site id, path or address anywhere in the figures.
      const labelValues = now.flatMap((s) => Object.values(s.labels));
      expect(labelValues.filter((v) => v.includes(site.siteId) || v.includes('127.0.0.1'))).toEqual([]);
    });

    it('on a port of its own (METRICS_PORT), answers /metrics and nothing else', async () => {
      const own = metricsServer(t.deps, t.metrics).listen(0, '127.0.0.1');
      await new Promise((r) => own.once('listening', r));
      try {
        const base = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
        // METRICS_TOKEN is set for this server, so its own port asks for it too.
        expect((await fetch(`${base}/metrics`)).status).toBe(401);
        const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(res.status).toBe(200);
        expect(sampleValue(parseMetrics(await res.text()), 'us_hot_store_up')).toBe(1);
        expect((await fetch(`${base}/`)).status).toBe(404);
      } finally {
        own.closeAllConnections();
        await new Promise((r) => own.close(r));
      }
    });
  });
});
