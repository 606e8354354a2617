import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, postReport } from '../support/collect.ts';
import { captureLogs } from '../support/logs.ts';
import { modernCall } from '../support/mcp-http.ts';
import { parseMetrics, type Sample, sampleValue } from '../support/metrics.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'attack-observability-metrics-token';
const made = (tag: string) => `${tag}${randomBytes(6).toString('hex')}`;

/**
 * A stranger aims at the operator's tools: made-up routes, procedures and tools to blow up the metrics'
 * label sets (each new label value is a new series Prometheus keeps), request ids made to forge or break log
 * lines, and guessed metrics tokens. The figures stay bounded, nothing the stranger chose lands in a log
 * line or a metric, and a bystander's page reports are still served and counted.
 */
describe('attack: flooding the logs and the metrics', () => {
  let t: TestServer;
  let bystander: CollectSite;
  const logs = captureLogs();
  const scrape = async (): Promise<Sample[]> =>
    parseMetrics((await t.request.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text);
  const operations = (samples: Sample[]) =>
    new Set(samples.filter((s) => s.name === 'us_http_requests_total').map((s) => `${s.labels.face} ${s.labels.operation}`));

  beforeAll(async () => {
    t = await startTestServer({
      env: { METRICS_TOKEN: TOKEN, LOG_FORMAT: 'json', LOG_LEVEL: 'debug' },
      logs: logs.destination,
    });
    bystander = await collectSite(t, 'bystander.observability.example');
  });
  afterAll(() => t?.close());

  it('made-up routes, procedures and tools add no series, and their names are in no log line or metric', async () => {
    const token = bystander.auth.replace(/^Bearer /, '');
    // Once of each kind first, so every bounded name they fall under already has its series.
    const round = async () => {
      const names = { rest: made('rest-'), trpc: made('trpc.'), tool: made('tool_'), id: made('id-') };
      await t.request.get(`/v1/${names.rest}/x`).set('X-Request-Id', names.id).expect(404);
      await t.request.get(`/trpc/${names.trpc},${made('batch.')}`);
      await modernCall(t.url, token, 'tools/call', { name: names.tool, arguments: {} });
      await t.request.get(`/${names.rest}.html`);
      return names;
    };
    await round();
    await scrape(); // a scrape is counted once it has ended: the second one shows the first
    const before = operations(await scrape());
    const chosen: string[] = [];
    for (let i = 0; i < 25; i++) chosen.push(...Object.values(await round()).filter((v) => !v.startsWith('id-')));
    const after = await scrape();
    expect([...operations(after)].filter((o) => !before.has(o))).toEqual([]);
    const text = `${logs.text()}\n${JSON.stringify(after)}`;
    expect(chosen.filter((c) => text.includes(c))).toEqual([]);
    // What they did count under: the bounded names.
    expect(sampleValue(after, 'us_http_requests_total', { face: 'rest', operation: '(unmatched)' })).toBeGreaterThanOrEqual(26);
    expect(sampleValue(after, 'us_http_requests_total', { face: 'trpc', operation: '(unknown)' })).toBeGreaterThanOrEqual(52);
  });

  it('request ids made to forge or break log lines are replaced, never echoed or logged', async () => {
    const forged = [
      '","level":"error","msg":"forged',
      'a\\nb',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the attacker's literal text, not a template
      '${jndi:ldap://x}',
      'x'.repeat(10_000),
      '%0d%0aSet-Cookie:x=1',
      '../../etc/passwd',
    ];
    for (const id of forged) {
      const res = await t.request.get('/healthz').set('X-Request-Id', id).expect(200);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Every line is still one whole JSON object, and none holds a forged id.
    const lines = logs.text().trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(forged.filter((id) => logs.text().includes(id))).toEqual([]);
    expect(logs.lines().filter((l) => l.msg === 'forged')).toEqual([]);
  });

  it('guessed metrics tokens are refused, and the right one still reads the figures', async () => {
    for (let i = 0; i < 20; i++) {
      await t.request
        .get('/metrics')
        .set('Authorization', `Bearer ${made('guess-')}`)
        .expect(401);
    }
    await t.request
      .get('/metrics')
      .set('Authorization', `Bearer ${TOKEN.slice(0, -1)}`)
      .expect(401);
    expect((await scrape()).length).toBeGreaterThan(0);
  });

  it('meanwhile a bystander’s page reports are answered, stored and counted', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++)
      await postReport(t, bystander, { extra: { u: `https://${bystander.hostname}/after-${i}` } }).expect(202);
    await t.deps.ingest.flushNow();
    const rows = (await t.deps.orm.em
      .fork()
      .execute(`select path from pageviews where site_id = ? and path like '/after-%'`, [bystander.siteId])) as unknown[];
    expect(rows).toHaveLength(3);
    const after = await scrape();
    const labels = { face: 'collect', operation: 'collect', status: '2xx' };
    expect(sampleValue(after, 'us_http_requests_total', labels) - sampleValue(before, 'us_http_requests_total', labels)).toBe(3);
  });
});
