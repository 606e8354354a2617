import { isIP } from 'node:net';
import { issuePass, PASS_COOKIE, PASS_TTL_SECONDS } from '@us/protection';
import type { Context } from 'koa';
import type { Deps } from '../../../core/deps.ts';
import { logFailure, toAppError } from '../../../core/error-map.ts';
import { overBudget } from '../../../core/hot/address-budget.ts';
import { sha256 } from '../../../core/security/tokens.ts';
import { findSiteBySecret } from '../../site-keys/index.ts';
import { openGrant } from './grant.ts';
import { languageOf } from './language.ts';
import { sendRefusal } from './page.ts';
import { isReturnHostname, isReturnPath } from './return-target.ts';
import { passKeyForToken, tokenOf } from './site-key.ts';

/** `Host` or `X-Forwarded-Host` as a bare lower-case name: the first entry, no port, no trailing dot. */
function bareHost(value: string): string {
  const first = (value.split(',')[0] ?? '').trim().toLowerCase();
  const name = first.startsWith('[') ? first.slice(0, first.indexOf(']') + 1) : first.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

/**
 * Who is asking for the pass, on which host. The edge SDK forwards `/_us/*` with the customer's hostname
 * in `x-forwarded-host`, the site's secret in `x-svc-proxy` and the visitor's address in
 * `x-svc-client-ip`; those count only with a valid secret of the grant's own site. Otherwise (proxy-mode
 * hostnames reach us directly) the Host header and the connection's address.
 */
async function requester(deps: Deps, ctx: Context, siteId: string): Promise<{ host: string; ip: string }> {
  const secret = ctx.get('x-svc-proxy');
  if (secret && secret.length <= 200) {
    const site = await findSiteBySecret(deps.orm.em.fork(), secret);
    if (site?.id === siteId && ctx.get('x-forwarded-host')) {
      const named = ctx.get('x-svc-client-ip').trim();
      return { host: bareHost(ctx.get('x-forwarded-host')), ip: isIP(named) ? named : ctx.ip };
    }
  }
  return { host: bareHost(ctx.get('host')), ip: ctx.ip };
}

/** The `us_pass` line: first-party, one day, never readable by page scripts, sent on top-level navigations. */
export const passCookie = (value: string) =>
  `${PASS_COOKIE}=${value}; Path=/; Max-Age=${PASS_TTL_SECONDS}; HttpOnly; Secure; SameSite=Lax`;

/**
 * `GET /_us/pass?g=<grant>` on the customer's hostname, where the check page sends a browser that passed.
 * The grant must be signed with the pass key of the site it names, still valid (two minutes), unused,
 * for exactly the host it arrives on, and that host still one the site has proven. Then `us_pass` is set
 * for this browser and network and the browser goes back to the path it asked for, on this same host
 * (a relative Location: it cannot leave the host). Expired or used grants: 410; anything else: 400.
 */
export async function passReturn(deps: Deps, ctx: Context) {
  const lang = languageOf(ctx.get('accept-language'));
  // Counted per connecting address before anything is looked up.
  if (await overBudget(deps.hot, 'pass', ctx.ip)) return sendRefusal(ctx, lang, 429, 'tooMany', { retryAfter: 60 });
  const bad = () => sendRefusal(ctx, lang, 400, 'passBad');
  try {
    const token = tokenOf(ctx.query.g);
    if (!token) return bad();
    const em = deps.orm.em.fork();
    const key = await passKeyForToken(deps, em, token);
    if (!key) return bad();
    const grant = await openGrant(key.passKey, token);
    if (!grant || grant.s !== key.siteId || !isReturnPath(grant.p)) return bad();
    const { host, ip } = await requester(deps, ctx, key.siteId);
    if (host !== grant.h) return bad();
    const now = Date.now();
    if (grant.e * 1000 <= now) return sendRefusal(ctx, lang, 410, 'passGone');
    if (!(await isReturnHostname(em, key.siteId, grant.h))) return bad();
    let first = true;
    try {
      first = await deps.hot.setIfAbsent(
        `pass-grant-used:${sha256(token)}`,
        '1',
        Math.max(1, grant.e - Math.floor(now / 1000) + 60),
      );
    } catch (err) {
      // The gate fails open: a grant replayed within its two minutes while the store is down gains nothing more.
      deps.logger.warn(`/_us/pass: single use not checked (${String(err)})`);
    }
    if (!first) return sendRefusal(ctx, lang, 410, 'passGone');
    const value = await issuePass(key.passKey, key.siteId, ctx.get('user-agent'), ip, now);
    ctx.append('Set-Cookie', passCookie(value));
    ctx.status = 303;
    ctx.set('Location', grant.p);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = '';
  } catch (err) {
    const e = toAppError(err);
    logFailure(deps.logger, 'GET /_us/pass', e);
    if (e.status < 500) return bad();
    sendRefusal(ctx, lang, e.status === 503 ? 503 : 500, 'unavailable', { retryAfter: e.retryAfter ?? 5 });
  }
}
