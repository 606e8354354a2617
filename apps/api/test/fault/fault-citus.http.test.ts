import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startNode, stopNode } from '../../../../scripts/citus/cluster.ts';
import { type CollectSite, collectSite } from '../support/collect.ts';
import {
  answered,
  recordingLogger,
  storedCounts,
  streamReports,
  tally,
  waitUntilFlowing,
  waitUntilStored,
  waitWhileStreaming,
} from '../support/faults.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The Citus lane only (`npm run test:citus`): the worker holding a site's rows is stopped while its page
 * reports stream in, and started again. Collect answers 202 throughout from its caches and buffer; once the
 * worker is back every acknowledged report is stored, once; meanwhile the site's figures answer 503.
 */
const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

describe.runIf(inject('databaseKind') === 'citus')(
  'fault: the Citus worker holding a site stops while its reports stream in',
  () => {
    let t: TestServer;
    let site: CollectSite;
    const ingestLog = recordingLogger();

    beforeAll(async () => {
      t = await startTestServer({
        hot: 'memory',
        mail: 'outbox',
        env: { ...NO_BUDGETS, LOG_LEVEL: 'silent' },
        ingest: { backoffMs: 100, maxBackoffMs: 500, logger: ingestLog },
      });
      site = await collectSite(t, 'fault-citus.example', ['analytics:read']);
    });
    afterAll(async () => {
      // A failed test must not leave the run's cluster without a worker.
      for (const w of inject('citusWorkers')) startNode(w);
      await t?.close();
    });

    it('answers 202 throughout and stores every acknowledged report once the worker is back', async () => {
      const [shard] = await t.deps.orm.em.getConnection().execute<{ port: number }[]>(
        `select nodeport as port from citus_shards where table_name = 'pageviews'::regclass
          and shardid = get_shard_id_for_distribution_column('pageviews', ?::uuid)`,
        [site.siteId],
      );
      const worker = inject('citusWorkers').find((w) => w.port === shard?.port);
      expect(worker, `the worker on port ${shard?.port}`).toBeDefined();
      if (!worker) return;

      const stream = streamReports({ baseUrl: () => t.url, site, loops: 4 });
      await waitUntilFlowing(t.deps.orm, site.siteId, stream, 0);
      stopNode(worker);
      const stopped = Date.now();
      const linesBefore = ingestLog.lines.length;
      await waitWhileStreaming(stream, () => {
        expect(answered(stream.log, 202, stopped)).toBeGreaterThan(50);
        expect(ingestLog.lines.slice(linesBefore).join('\n')).toContain('ingest flush failed');
      });
      // The site's figures cannot be read meanwhile: a 503 problem, never a 500.
      const summary = await t.request.get(`/v1/sites/${site.siteId}/summary?days=1`).set('Authorization', site.auth);
      expect({ status: summary.status, type: summary.type }).toEqual({ status: 503, type: 'application/problem+json' });
      const up = Date.now();
      startNode(worker);
      await waitUntilFlowing(t.deps.orm, site.siteId, stream, stream.log.acked.length);
      const log = await stream.stop();

      expect(log.violations).toEqual([]);
      const outage = tally(log, stopped, up);
      expect(Object.keys(outage)).toEqual(['202']);
      expect(Object.keys(tally(log))).toEqual(['202']);

      const missing = await waitUntilStored(t.deps.orm, site.siteId, log.acked, 30_000);
      expect(missing).toEqual([]);
      const counts = await storedCounts(t.deps.orm, site.siteId);
      expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
      expect(counts.size).toBe(log.acked.length);
    });
  },
);
