import { createServer, type Server } from 'node:http';
import { poolUseOf } from '@us/db';
import type { Context } from 'koa';
import { Counter, Gauge, Registry } from 'prom-client';
import { INGEST_TABLES } from '../analytics/ingest/index.ts';
import type { Deps } from '../core/deps.ts';
import { AppError, unauthorized } from '../core/errors.ts';
import { sendProblem } from '../core/http/problem-response.ts';
import { collectProcessMetrics, processMetrics } from '../core/observe/metrics.ts';
import { safeEqual } from '../core/security/tokens.ts';

/**
 * Prometheus metrics (docs/operations/observability.md, "Metrics"): the process's counters and histograms
 * (`core/observe/metrics.ts`) and this server's figures read at each scrape: database pools, write-buffer
 * backlog, hot store. Served on the main port to METRICS_TOKEN (Bearer), on METRICS_PORT, or not at all (404).
 */
export function serverMetrics(deps: Pick<Deps, 'orm' | 'statsOrm' | 'ingest' | 'hot'>): Registry {
  collectProcessMetrics();
  const own = new Registry();
  const pools = { main: deps.orm, stats: deps.statsOrm } as const;
  const uses = () => Object.entries(pools).map(([pool, orm]) => [pool, poolUseOf(orm)] as const);
  new Gauge({
    name: 'us_db_pool_connections',
    help: 'Database connections of each pool (main: requests, ingest, jobs; stats: stats questions), busy or idle.',
    labelNames: ['pool', 'state'] as const,
    registers: [own],
    collect() {
      for (const [pool, use] of uses()) {
        this.set({ pool, state: 'busy' }, use.open - use.idle);
        this.set({ pool, state: 'idle' }, use.idle);
      }
    },
  });
  new Gauge({
    name: 'us_db_pool_max',
    help: 'Connections each pool may open.',
    labelNames: ['pool'] as const,
    registers: [own],
    collect() {
      for (const [pool, use] of uses()) this.set({ pool }, use.max);
    },
  });
  new Gauge({
    name: 'us_db_pool_waiting',
    help: 'Queries waiting for a connection of each pool at this moment.',
    labelNames: ['pool'] as const,
    registers: [own],
    collect() {
      for (const [pool, use] of uses()) this.set({ pool }, use.waiting);
    },
  });
  new Counter({
    name: 'us_db_pool_waits_total',
    help: 'Queries that found every connection of their pool busy and waited for one.',
    labelNames: ['pool'] as const,
    registers: [own],
    collect() {
      this.reset();
      for (const [pool, use] of uses()) this.inc({ pool }, use.waits);
    },
  });
  new Gauge({
    name: 'us_ingest_backlog_rows',
    help: 'Rows waiting in the write buffer, by table (Redis: the shared queue; in-process: this node’s).',
    labelNames: ['table'] as const,
    registers: [own],
    async collect() {
      await Promise.all(
        INGEST_TABLES.map((table) =>
          deps.ingest.buffer.size(table).then(
            (rows) => this.set({ table }, rows),
            () => undefined, // Redis unreachable: no figure rather than a wrong one
          ),
        ),
      );
    },
  });
  new Gauge({
    name: 'us_hot_store_up',
    help: 'Whether the hot store (memory: this process; redis, redis-cluster: shared) answers a ping: 1 or 0.',
    labelNames: ['kind'] as const,
    registers: [own],
    async collect() {
      const up = await deps.hot.ping().then(
        () => 1,
        () => 0,
      );
      this.set({ kind: deps.hot.kind }, up);
    },
  });
  return own;
}

/** Every metric of the process and of this server, in Prometheus's text format. */
export async function scrape(own: Registry): Promise<{ type: string; body: string }> {
  const all = Registry.merge([processMetrics, own]);
  return { type: all.contentType, body: await all.metrics() };
}

/** Whether a request may read the metrics: no METRICS_TOKEN, or `Authorization: Bearer <METRICS_TOKEN>`. */
function allowed(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m !== null && safeEqual(m[1] as string, token);
}

/** `/metrics` on the main port: only with METRICS_TOKEN, and only to its bearer. */
export function metricsHandler(deps: Deps, own: Registry) {
  const token = deps.env.METRICS_TOKEN;
  return async (ctx: Context) => {
    if (!token) return sendProblem(ctx, new AppError(404, 'No such route: check the path'));
    if (!allowed(token, ctx.get('Authorization') || undefined)) {
      return sendProblem(ctx, unauthorized('Send the metrics token as Authorization: Bearer <METRICS_TOKEN>'));
    }
    const { type, body } = await scrape(own);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = type;
    ctx.body = body;
  };
}

/** `/metrics` on a port of its own (METRICS_PORT), for a scraper on the private network; not listening yet. */
export function metricsServer(deps: Deps, own: Registry): Server {
  const token = deps.env.METRICS_TOKEN;
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found');
      return;
    }
    if (!allowed(token, req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' }).end('Unauthorized');
      return;
    }
    scrape(own).then(
      ({ type, body }) => res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body),
      (err) => {
        deps.logger.error('metrics: a scrape failed', err);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
      },
    );
  });
}
