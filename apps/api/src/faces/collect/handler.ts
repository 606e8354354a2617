import type { Site } from '@us/db';
import type { PageReport, RequestRecord, ScriptFeature } from '@us/shared';
import type { Context } from 'koa';
import type { Deps } from '../../core/deps.ts';
import type { PageUrl } from '../../core/enrich/index.ts';
import { logFailure, toAppError } from '../../core/error-map.ts';
import { methodNotAllowed } from '../../core/errors.ts';
import { sendProblem } from '../../core/http/problem-response.ts';
import { scriptFeaturesOf } from '../../core/script-builds.ts';
import { requestLoggingPaused } from '../../features/billing/usage-pause.ts';
import { notePageScript, noteRequests } from '../../features/protection/behaviour.ts';
import { visitorCodeOf } from '../../features/protection/visitor-code.ts';
import { batchRowIds } from './batch-row-ids.ts';
import { seenOfBatch } from './behaviour-feed.ts';
import { collectBudgets } from './budget.ts';
import { networksOf, protectionModeOf, rowOfRecord, rowsOfReport, type TableRows } from './classify.ts';
import type { CollectExchange } from './exchange.ts';
import { protectionRoutes } from './gate-routes.ts';
import { type Client, clientOfReport, siteIdOfSecret, siteOfBatch, siteOfReport } from './identify.ts';
import { batchAnswer, MAX_EXPOSURES, readPageReport, readRequestBatch } from './intake.ts';
import { noteNoReturnOfBatch } from './no-return-feed.ts';
import { siteCache } from './site-cache.ts';

/** How long a batch id is remembered as fed to behaviour memory (the SDK sends a batch again within seconds). */
const BATCH_FED_SECONDS = 600;

const LAST_SEEN_EVERY_MS = 60_000;
/** Lookups of secrets a node does not know yet, per address and minute: a real edge needs one. */
const SECRET_LOOKUPS_PER_ADDRESS = 60;
/**
 * Lookups of site keys a node holds no answer for, per address and minute. A browser reports to one site;
 * a shared address (an office, a carrier's NAT) to a few dozen at most after the node's cache was cleared.
 */
const KEY_LOOKUPS_PER_ADDRESS = 120;

/**
 * `POST /collect`, `POST /collect/requests` and their OPTIONS: the public write path of the page script
 * and the edge SDK. Each request passes the same named stages: intake (read, parse within limits),
 * identify (site, key, hostname, secret), budget (per address and site), classify (enrichment, lane,
 * cleaned rows), enqueue (the write buffer). Behaviour memory is fed on the way (sites whose protection
 * is not off), failing open. Beside them, the gate's routes for edges: `GET /collect/protection` and
 * `POST /collect/decide` (`protection.ts`; no CORS: servers only).
 *
 * A page report is answered 202 once it passed every check its answer depends on (shape, site, key
 * lookups, room in the write buffer, held for its rows at once); the budgets, the rows and the queueing
 * follow right after the answers of that turn are written (`afterAnswers`: the server's turn-end writer),
 * so no answer waits for another report's rows. A flush or shutdown waits for them (`Ingest.holdRoom`).
 * A buffer that cannot hold room ahead (Redis) has the rows queued before the answer, as edge batches do.
 */
export function collectHandler(deps: Deps, afterAnswers: (work: () => void) => void = setImmediate) {
  const cache = siteCache(deps);
  const budgets = collectBudgets(
    deps.hot,
    {
      reportsPerAddress: deps.env.COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE,
      reportsPerSite: deps.env.COLLECT_REPORTS_PER_SITE_PER_MINUTE,
      batchesPerSite: deps.env.COLLECT_BATCHES_PER_SITE_PER_MINUTE,
      secretLookupsPerAddress: SECRET_LOOKUPS_PER_ADDRESS,
      keyLookupsPerAddress: KEY_LOOKUPS_PER_ADDRESS,
    },
    deps.logger,
  );
  const lastSeen = new Map<string, number>();
  const trust = { trust: deps.env.TRUST_PROXY, hops: deps.env.TRUST_PROXY_HOPS };
  const protection = protectionRoutes(deps, cache, budgets);

  /** Stamps the site as installed, at most once a minute per node; never holds a report up. */
  function touch(siteId: string) {
    const now = Date.now();
    if ((lastSeen.get(siteId) ?? 0) > now - LAST_SEEN_EVERY_MS) return;
    if (lastSeen.size > 10_000) lastSeen.clear();
    lastSeen.set(siteId, now);
    deps.orm.em
      .fork()
      .execute(
        `update sites set last_seen_at = now() where id = ? and (last_seen_at is null or last_seen_at < now() - interval '1 minute')`,
        [siteId],
      )
      .catch((e) => deps.logger.debug(`collect: install stamp not written (${String(e)})`));
  }

  async function page(ctx: CollectExchange) {
    if (ctx.get('sec-gpc').trim() === '1') {
      ctx.status = 204; // Global Privacy Control: nothing is read, nothing recorded.
      return;
    }
    const report = await readPageReport(ctx);
    const { site, page: url } = await siteOfReport(cache, report, ctx.get('origin'), { budgets, ip: ctx.ip });
    const client = await clientOfReport(ctx, cache, budgets, site.id, trust);
    const at = new Date();
    // A pageview is one row and its exposures; room for them all, or 503 now (BufferFull).
    const room = deps.ingest.holdRoom(report.t === 'pv' ? 1 + MAX_EXPOSURES : 1);
    if (room) {
      afterAnswers(() => {
        store(report, url, site, client, at, room)
          .catch((err) => deps.logger.error(`POST /collect: an answered report's rows were not queued`, err))
          .finally(() => room.release());
      });
    } else {
      await store(report, url, site, client, at, deps.ingest);
    }
    ctx.status = 202;
    ctx.body = '';
  }

  /** A page report that passed its checks: counted against the budgets, then its rows built and queued. */
  async function store(
    report: PageReport,
    url: PageUrl,
    site: Site,
    client: Client,
    at: Date,
    queue: { enqueueMany(table: TableRows['table'], rows: TableRows['rows']): unknown },
  ) {
    if (!(await budgets.admitReport(site.id, client.ip))) return;
    for (const { table, rows } of await rowsOfReport(deps, site, report, client, at, url)) {
      await queue.enqueueMany(table, rows);
    }
    touch(site.id);
    // A pageview proves its visitor runs page scripts (behaviour memory's `no-script` sign).
    if (report.t === 'pv' && protectionModeOf(site) !== 'off') {
      await notePageScript(deps, site.id, await visitorCodeOf(deps.hot, site.id, client.ip, client.ua));
    }
  }

  /**
   * Request records of a site, from an edge batch or the service's own proxy (`faces/proxy`): stored and
   * counted unless the month's logging is paused or the site's batch budget is spent, and fed to behaviour
   * memory. Answers how many were stored. `ids`: the rows' ids (an edge batch with its own id), else new ones.
   */
  async function recordRequests(
    site: Site,
    records: RequestRecord[],
    ids?: readonly string[],
    batchId?: string,
  ): Promise<{ stored: number; paused: boolean }> {
    // Free at 150% of the month's server requests: accepted, not stored, until the month turns (spec §8).
    // Unknown while PostgreSQL is unreachable: then the records are kept (they are stored once it is back).
    if (await requestLoggingPaused(deps.orm, site.workspace.id).catch(() => false)) return { stored: 0, paused: true };
    if (!(await budgets.admitBatch(site.id))) return { stored: 0, paused: false };
    const networks = networksOf(site);
    const mode = protectionModeOf(site);
    const rows = records.map((rec, i) => {
      const row = rowOfRecord(site, networks, rec, mode);
      if (ids) row.id = ids[i];
      return row;
    });
    await deps.ingest.enqueueMany('requests', rows);
    touch(site.id);
    // A batch sent again under its id (its answer lost, or past the sender's timeout) is stored once by its rows'
    // ids, and fed once: counted twice, a person's pages read as a burst. Unknown (the hot store away): fed.
    if (batchId && !(await deps.hot.setIfAbsent(`batch-fed:${site.id}:${batchId}`, '1', BATCH_FED_SECONDS).catch(() => true))) {
      return { stored: records.length, paused: false };
    }
    noteNoReturnOfBatch(deps, site.id, records);
    if (mode !== 'off') await noteRequests(deps, site.id, await seenOfBatch(deps.hot, site.id, records, rows));
    return { stored: records.length, paused: false };
  }

  async function requests(ctx: CollectExchange) {
    const siteId = await siteIdOfSecret(ctx, cache, budgets);
    const batch = await readRequestBatch(ctx);
    const site = await siteOfBatch(cache, batch.k, siteId);
    ctx.status = 202;
    const { batchId, places } = batch;
    const ids = batchId
      ? batchRowIds(
          site.id,
          batchId,
          batch.records.map((r, i) => ({ place: places[i] as number, at: r.at })),
        )
      : undefined;
    const { stored, paused } = await recordRequests(site, batch.records, ids, batchId ?? undefined);
    if (paused) ctx.set('x-svc-logging', 'paused');
    ctx.body = batchAnswer(stored, batch.refused);
  }

  /** The collect routes on any exchange: Koa's context, or the lane's own (`lane.ts`). */
  async function answer(ctx: CollectExchange) {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Vary', 'Origin');
    try {
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', 'Content-Type');
        ctx.set('Access-Control-Max-Age', '86400');
        ctx.status = 204;
        return;
      }
      if (ctx.method !== 'POST') throw methodNotAllowed('POST, OPTIONS');
      if (ctx.path === '/collect/requests') await requests(ctx);
      else await page(ctx);
    } catch (err) {
      answerFailure(ctx, err);
    }
  }

  /** A failure as its problem answer, logged (with the path only: no body or credential). */
  function answerFailure(ctx: CollectExchange, err: unknown) {
    const app = toAppError(err);
    logFailure(deps.logger, `${ctx.method} ${ctx.path}`, app);
    sendProblem(ctx, app);
  }

  return {
    answer,
    recordRequests,
    /**
     * The parts of the page script the site behind a public key gets (GET /script/<siteKey>.js), from the
     * collect path's cache: null for no such site, 'busy' when this address looked up too many unknown keys.
     */
    async scriptFeaturesOf(key: string, ip: string): Promise<ScriptFeature[] | null | 'busy'> {
      if (!cache.knowsKey(key) && !(await budgets.mayLookUpKey(ip))) return 'busy';
      const { site } = await cache.siteFor(key);
      return site ? scriptFeaturesOf(site.settings) : null;
    },
    /** The site with what the gate needs, from the collect path's cache (the proxy decides with it too). */
    protectedSite: cache.protectedSite,
    /** Koa's door: the gate's routes, and the collect routes when the lane left them to Koa. */
    async koa(ctx: Context) {
      try {
        if (await protection.handle(ctx)) return;
      } catch (err) {
        answerFailure(ctx, err);
        return;
      }
      await answer(ctx);
    },
  };
}
