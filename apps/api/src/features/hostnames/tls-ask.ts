import { SiteHostname } from '@us/db';
import { normaliseHostname } from '@us/shared';
import type { Context } from 'koa';
import { LookupCache } from '../../core/cache/lookup-cache.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { sendProblem } from '../../core/http/problem-response.ts';
import { isLiveProxy } from './proxy-route.ts';

/** Where Caddy's on-demand TLS asks whether to get a certificate (infra/caddy/Caddyfile: `on_demand_tls { ask … }`). */
export const TLS_ASK_PATH = '/proxy/tls-ask';

/** How long an answer is used: a hostname that just went live (or was removed) is seen within this. */
const ANSWER_MS = 5_000;
/** Names remembered at most; a flood of made-up names starts the cache over rather than grow it. */
const MAX_NAMES = 10_000;

/**
 * `GET /proxy/tls-ask?domain=<hostname>`: 200 only for a registered proxy-mode hostname that is live
 * (status active), 404 for any other name (and for any request forwarded by a proxy), 400 without a valid hostname. Caddy asks at every name it has
 * no certificate for, strangers' made-up TLS server names included: answers are kept a few seconds per
 * name (one database lookup per name at a time, `LookupCache`).
 */
export function tlsAskHandler(deps: Pick<Deps, 'orm' | 'logger'>, opts: { now?: () => number } = {}) {
  const answers = new LookupCache<boolean>({
    ttlMs: ANSWER_MS,
    refreshMs: 0,
    maxEntries: MAX_NAMES,
    now: opts.now ?? Date.now,
    onRefreshError: (e) => deps.logger.warn(`tls ask: a hostname could not be looked up (${String(e)})`),
  });
  const isLive = async (hostname: string) => {
    const row = await deps.orm.em.fork().findOne(SiteHostname, { hostname, proxy: true }, { fields: ['proxy', 'edgeStatus'] });
    return row !== null && isLiveProxy(row);
  };

  return async (ctx: Context) => {
    // Caddy asks from next to the service, never through a proxy. Forwarded from outside (the public hostname's
    // proxy adds X-Forwarded-For), a made-up name per request was a database lookup per request, and the answers
    // told anyone which hostnames are live.
    if (ctx.get('x-forwarded-for')) {
      return sendProblem(ctx, new AppError(404, 'This path answers the ingress next to the service only'));
    }
    const raw = ctx.query.domain;
    const check = typeof raw === 'string' && raw.length <= 253 ? normaliseHostname(raw) : null;
    if (!check?.ok) {
      return sendProblem(
        ctx,
        badRequest('domain', check?.problem ?? 'Give one hostname as domain, such as ?domain=www.example.com'),
      );
    }
    if (!(await answers.get(check.hostname, isLive))) {
      return sendProblem(ctx, new AppError(404, `${check.hostname} is not a live proxy-mode hostname: no certificate for it`));
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { hostname: check.hostname, live: true };
  };
}
