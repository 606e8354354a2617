import type { Site } from '@us/db';
import { PageReport, RequestBatch } from '@us/shared';
import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { AppError, badRequest, forbidden, toProblem } from '../errors.ts';
import type { EventRow, PageLeaveRow, PageviewRow, RequestRow } from '@us/db';
import { findSiteBySecret } from '../services/sites/key-lookup.ts';
import { verifyInternalMark } from '../services/internal-link/mark.ts';
import { inAnyNetwork } from './cidr.ts';
import { requestLoggingPaused } from '../usage/pause.ts';
import { siteCache } from './site-cache.ts';
import { dailySalt, type Enrichment, enrich, referrerHost, utmOf, visitorCode } from './enrich/index.ts';

const MAX_BODY = 16 * 1024;
const MAX_BATCH_BODY = 1024 * 1024;
const LAST_SEEN_EVERY_MS = 60_000;

type Lane = 'human' | 'bot' | 'internal';

async function readBody(ctx: Context, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new AppError(400, `Request body too large: at most ${limit} bytes`, { field: '(body)' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('(body)', 'Send the report as JSON');
  }
}

function zodField(issues: { path: PropertyKey[]; message: string }[]): AppError {
  const first = issues[0];
  const field = first?.path.length ? first.path.map(String).join('.') : '(body)';
  return badRequest(field, `Invalid report: ${first?.message ?? 'does not match the collect format'}`);
}

function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname || '/';
  } catch {
    return '/';
  }
}

function laneOf(e: Enrichment, internal: boolean): Lane {
  if (internal) return 'internal';
  if (e.kind === 'bot' || e.automation.length > 0 || e.hosting) return 'bot';
  return 'human';
}

function networksOf(site: Site): string[] {
  const n = (site.settings as { internalNetworks?: unknown }).internalNetworks;
  return Array.isArray(n) ? n.filter((x): x is string => typeof x === 'string') : [];
}

/** `POST /collect`, `POST /collect/requests` and their OPTIONS: the public write path of the page script and edge SDK. */
export function collectHandler(deps: Deps) {
  const siteFor = siteCache(deps);
  const lastSeen = new Map<string, number>();

  async function proxyTrusted(ctx: Context, siteId: string): Promise<boolean> {
    const secret = ctx.get('x-svc-proxy');
    if (!secret) return false;
    const owner = await findSiteBySecret(deps.orm.em.fork(), secret);
    return owner?.id === siteId;
  }

  async function touch(siteId: string) {
    const now = Date.now();
    if ((lastSeen.get(siteId) ?? 0) > now - LAST_SEEN_EVERY_MS) return;
    lastSeen.set(siteId, now);
    await deps.orm.em
      .fork()
      .execute(
        `update sites set last_seen_at = now() where id = ? and (last_seen_at is null or last_seen_at < now() - interval '1 minute')`,
        [siteId],
      );
  }

  async function page(ctx: Context) {
    if (ctx.get('sec-gpc').trim() === '1') {
      ctx.status = 204;
      return;
    }
    const parsed = PageReport.safeParse(parseJson(await readBody(ctx, MAX_BODY)));
    if (!parsed.success) throw zodField(parsed.error.issues);
    const r = parsed.data;
    const { site, hostnames } = await siteFor(r.k);
    if (!site) throw new AppError(404, 'Unknown site key: check data-site on the script tag');
    const pageHost = hostOf(r.u);
    const origin = ctx.get('origin');
    const originHost = origin ? hostOf(origin) : null;
    if (!pageHost || !hostnames.has(pageHost) || (origin && (!originHost || !hostnames.has(originHost)))) {
      throw forbidden("report from a page that is not on this site's hostnames");
    }
    const trusted = ctx.get('x-svc-proxy') ? await proxyTrusted(ctx, site.id) : false;
    const ip = (trusted && ctx.get('x-svc-client-ip')) || ctx.ip;
    const ua = ctx.get('user-agent');
    const known = trusted
      ? {
          country: ctx.get('x-svc-client-country') || null,
          asn: Number(ctx.get('x-svc-client-asn')) || null,
          asOrg: ctx.get('x-svc-client-as-org') || null,
        }
      : undefined;
    const e = enrich({ ip, ua, width: r.t === 'pv' ? r.w : null, known });
    const internal = inAnyNetwork(networksOf(site), ip) || (r.m ? verifyInternalMark(site, r.m) : false);
    const lane = laneOf(e, internal);
    const visitor = visitorCode(await dailySalt(deps.hot), site.id, ip, ua);
    const at = new Date();
    const path = pathOf(r.u);
    const enqueues: Promise<unknown>[] = [];
    if (r.t === 'pv') {
      const utm = utmOf(r.u);
      const row: PageviewRow = {
        siteId: site.id,
        at,
        pageviewId: r.id,
        visitor,
        sessionStart: r.n === 1,
        lane,
        path,
        pageType: r.p ?? null,
        referrerHost: referrerHost(r.r),
        utmSource: utm.source ?? null,
        utmMedium: utm.medium ?? null,
        utmCampaign: utm.campaign ?? null,
        country: e.country,
        asn: e.asn,
        asOrg: e.asOrg,
        device: e.device,
        windowWidth: r.w,
        language: r.l || null,
        timezone: r.z || null,
        botName: e.bot?.name ?? null,
        botCategory: e.bot?.category ?? null,
      };
      enqueues.push(deps.ingest.enqueue('pageviews', row));
      for (const [experiment, variant] of Object.entries(r.x ?? {})) {
        const ev: EventRow = {
          siteId: site.id,
          at,
          pageviewId: r.id,
          visitor,
          lane,
          path,
          name: experiment,
          kind: 'exposure',
          experiment,
          variant,
          country: e.country,
          device: e.device,
        };
        enqueues.push(deps.ingest.enqueue('events', ev));
      }
    } else if (r.t === 'ev') {
      const ev: EventRow = {
        siteId: site.id,
        at,
        pageviewId: r.id,
        visitor,
        lane,
        path,
        name: r.e,
        label: r.el ?? null,
        value: r.ev ?? null,
        kind: 'event',
        country: e.country,
        device: e.device,
      };
      enqueues.push(deps.ingest.enqueue('events', ev));
    } else {
      const leave: PageLeaveRow = {
        siteId: site.id,
        at,
        pageviewId: r.id,
        lane,
        scrollDepth: r.s,
        timeOnPageMs: r.d,
        interacted: r.i === 1,
      };
      enqueues.push(deps.ingest.enqueue('page_leaves', leave));
    }
    await Promise.all(enqueues);
    await touch(site.id);
    ctx.status = 202;
    ctx.body = '';
  }

  async function requests(ctx: Context) {
    const parsed = RequestBatch.safeParse(parseJson(await readBody(ctx, MAX_BATCH_BODY)));
    if (!parsed.success) throw zodField(parsed.error.issues);
    const b = parsed.data;
    const { site } = await siteFor(b.k);
    if (!site || !(await proxyTrusted(ctx, site.id))) {
      throw new AppError(401, "Send the site's secret key in the x-svc-proxy header");
    }
    // Free at 150% of the month's server requests: accepted, not stored, until the month turns (spec §8).
    if (await requestLoggingPaused(deps.orm, site.workspace.id)) {
      ctx.set('x-svc-logging', 'paused');
      ctx.status = 202;
      ctx.body = '';
      return;
    }
    const networks = networksOf(site);
    for (const rec of b.records) {
      const e = enrich({ ip: rec.ip, ua: rec.ua, known: { country: rec.country, asn: rec.asn, asOrg: rec.asOrg } });
      const lane = laneOf(e, inAnyNetwork(networks, rec.ip));
      const kind: RequestRow['kind'] = rec.verifiedBot ? 'verified-bot' : e.kind === 'bot' ? 'bot' : 'browser';
      const row: RequestRow = {
        siteId: site.id,
        at: new Date(rec.at),
        method: rec.method,
        path: rec.path,
        status: rec.status,
        cache: rec.cache ?? null,
        durationMs: rec.ms,
        lane,
        kind,
        botName: e.bot?.name ?? null,
        botCategory: e.bot?.category ?? null,
        verified: rec.verifiedBot === true,
        country: e.country,
        asn: e.asn,
        asOrg: e.asOrg,
        tls: rec.tls ?? null,
      };
      await deps.ingest.enqueue('requests', row);
    }
    await touch(site.id);
    ctx.status = 202;
    ctx.body = '';
  }

  return async (ctx: Context) => {
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
      if (ctx.method !== 'POST') {
        ctx.set('Allow', 'POST, OPTIONS');
        ctx.status = 405;
        return;
      }
      if (ctx.path === '/collect/requests') await requests(ctx);
      else await page(ctx);
    } catch (err) {
      if (!(err instanceof AppError)) deps.logger.error('collect failed', err);
      const appErr = err instanceof AppError ? err : new AppError(500, 'Try again later');
      ctx.status = appErr.status;
      ctx.type = 'application/problem+json';
      ctx.body = JSON.stringify(toProblem(appErr));
    }
  };
}
