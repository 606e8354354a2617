import { isIP } from 'node:net';
import { originForm, pathToDecide } from '@us/protection';
import { DECIDE_LIMITS, DecideRequest, normaliseHostname, VerifyRequest } from '@us/shared';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { issueToError } from '../../core/error-map.ts';
import { AppError, badRequest, methodNotAllowed } from '../../core/errors.ts';
import { readBody } from '../../core/http/body.ts';
import { type DecideInput, decideRequest } from '../../features/protection/decide-request.ts';
import type { ProtectedSite } from '../../features/protection/protected-site.ts';
import {
  type BuiltConfig,
  buildProtectionConfig,
  CONFIG_MAX_AGE_SECONDS,
  notModified,
} from '../../features/protection/protection-config.ts';
import { verifyRequest } from '../../features/protection/verify-request.ts';
import type { CollectBudgets } from './budget.ts';
import { siteIdOfSecret } from './identify.ts';
import type { SiteCache } from './site-cache.ts';

/**
 * The largest decide request. Its visitor's fields are cut to their bounds rather than refused, so the body may
 * carry them whole: a request's headers reach 16 KB in Node, more once escaped in JSON.
 */
export const DECIDE_BODY_LIMIT = 64 * 1024;
/** The largest verify request (an address and a user agent). */
const VERIFY_BODY_LIMIT = 2 * 1024;
/** A built config is reused this long on a node (unless a site changed meanwhile): edges ask every minute. */
const CONFIG_MEMO_MS = 5_000;

const GONE = () => new AppError(401, "Send the site's secret key in the x-svc-proxy header");

/**
 * The gate's routes for edges, each with the site's secret in `x-svc-proxy`, checked before anything is
 * read, with the same budget of unknown-secret lookups as `/collect/requests` (401, then 429):
 * - `GET /collect/protection`: the protection config (ETag; If-None-Match → 304; private, max-age=60);
 * - `POST /collect/decide`: the decision for one request, for proxy mode and platforms without the SDK;
 * - `POST /collect/verify`: the verdict on a declared crawler at an address, for edges without one.
 */
export function protectionRoutes(deps: Deps, cache: SiteCache, budgets: CollectBudgets) {
  const memo = new Map<string, { built: BuiltConfig; generation: number; until: number }>();

  async function site(ctx: Context): Promise<ProtectedSite> {
    const siteId = await siteIdOfSecret(ctx, cache, budgets);
    const p = await cache.protectedSite(siteId);
    if (!p) throw GONE();
    return p;
  }

  async function configOf(p: ProtectedSite): Promise<BuiltConfig> {
    const now = Date.now();
    const hit = memo.get(p.site.id);
    if (hit && hit.until > now && hit.generation === p.generation) return hit.built;
    const built = await buildProtectionConfig(deps, p, now);
    if (memo.size >= 10_000) memo.clear();
    memo.set(p.site.id, { built, generation: p.generation, until: now + CONFIG_MEMO_MS });
    return built;
  }

  async function config(ctx: Context) {
    const built = await configOf(await site(ctx));
    ctx.set('ETag', built.etag);
    ctx.set('Cache-Control', `private, max-age=${CONFIG_MAX_AGE_SECONDS}`);
    if (notModified(ctx.get('if-none-match'), built.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = built.body;
  }

  async function readDecideRequest(ctx: Context): Promise<DecideInput> {
    const req = await readGateBody(
      ctx,
      DECIDE_BODY_LIMIT,
      DecideRequest,
      'Send the request to decide as JSON',
      visitorFieldsBounded,
    );
    // The Host header's form: a port is dropped. A host that is no valid hostname is kept only to be told apart.
    const bare = req.host
      .trim()
      .toLowerCase()
      .replace(/:\d{1,5}$/, '');
    const host = normaliseHostname(bare);
    return { ...req, host: host.ok ? host.hostname : NO_HOST };
  }

  const readVerifyRequest = (ctx: Context): Promise<VerifyRequest> =>
    readGateBody(ctx, VERIFY_BODY_LIMIT, VerifyRequest, 'Send the address and user agent to verify as JSON');

  async function verifyRoute(ctx: Context) {
    const p = await site(ctx);
    const answer = await verifyRequest(deps, p.site.id, await readVerifyRequest(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 200;
    ctx.body = answer;
  }

  async function decideRoute(ctx: Context) {
    const p = await site(ctx);
    const answer = await decideRequest(deps, p, await readDecideRequest(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 200;
    ctx.body = answer;
  }

  return {
    /** Handles the route when `ctx.path` is one of them; false otherwise. */
    async handle(ctx: Context): Promise<boolean> {
      if (ctx.path === '/collect/protection') {
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw methodNotAllowed('GET, HEAD');
        await config(ctx);
        return true;
      }
      if (ctx.path === '/collect/verify') {
        if (ctx.method !== 'POST') throw methodNotAllowed('POST');
        await verifyRoute(ctx);
        return true;
      }
      if (ctx.path === '/collect/decide') {
        if (ctx.method !== 'POST') throw methodNotAllowed('POST');
        await decideRoute(ctx);
        return true;
      }
      return false;
    },
  };
}

/**
 * The decide request's fields a visitor chooses (its user agent, path, Host, pass cookie; the country an edge
 * passes on), brought within their bounds instead of refused: a 400 makes the caller serve the request (the gate
 * fails open), so a 1,100-character user agent or a made-up Tor country `T1` got past every rule.
 */
function visitorFieldsBounded(json: unknown): unknown {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return json;
  const body = { ...(json as Record<string, unknown>) };
  if (typeof body.ua === 'string') body.ua = body.ua.slice(0, DECIDE_LIMITS.ua);
  if (typeof body.path === 'string') body.path = pathToDecide(originForm(body.path), DECIDE_LIMITS.path);
  if (typeof body.host === 'string' && (body.host.length === 0 || body.host.length > DECIDE_LIMITS.host)) body.host = NO_HOST;
  if (typeof body.pass === 'string' && body.pass.length > DECIDE_LIMITS.pass) delete body.pass;
  if (typeof body.country === 'string' && !/^[A-Za-z]{2}$/.test(body.country)) delete body.country;
  return body;
}

/** What a Host that is no hostname is decided as (it is no host a check may return to). */
const NO_HOST = '(not a hostname)';

/** A gate route's JSON body, bounded, checked against its schema, with a client address that is one. */
async function readGateBody<T extends { ip: string }>(
  ctx: Context,
  limit: number,
  schema: z.ZodType<T>,
  notJson: string,
  clean: (json: unknown) => unknown = (json) => json,
): Promise<T> {
  let json: unknown;
  try {
    json = clean(JSON.parse((await readBody(ctx.req, limit)).toString('utf8')));
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw badRequest('(body)', notJson);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw issueToError(parsed.error.issues[0] as z.core.$ZodIssue);
  if (!isIP(parsed.data.ip)) throw badRequest('ip', 'Give the client address as an IPv4 or IPv6 address, such as 203.0.113.7');
  return parsed.data;
}
