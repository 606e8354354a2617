import type { Context } from 'koa';
import type { Deps } from '../../../core/deps.ts';
import { logFailure, toAppError } from '../../../core/error-map.ts';
import { overBudget } from '../../../core/hot/address-budget.ts';
import { readBody } from '../../../core/http/body.ts';
import { sha256 } from '../../../core/security/tokens.ts';
import { failedChecks, noteFailedCheck, visitorCodeOf } from '../failed-checks.ts';
import { judgeAnswer } from './answer.ts';
import { issueGrant } from './grant.ts';
import { type Language, languageOf } from './language.ts';
import { sendCheckPage, sendRefusal } from './page.ts';
import { returnUrl } from './return-target.ts';
import { checkTicket, type TicketCheck } from './ticket.ts';
import { bitsFor, challengeOf } from './work.ts';

/** A form answer: the ticket (up to 8 KB) and a few short fields. */
const ANSWER_BODY_LIMIT = 16 * 1024;

type Ok = Extract<TicketCheck, { kind: 'ok' }>;

const usedKey = (ticket: string) => `check-ticket-used:${sha256(ticket)}`;

/**
 * The bot check at CHALLENGE_URL. `GET ?t=<ticket>` serves the page (a proof of work sized by the
 * ticket's risk and the visitor's failed checks of the day); `POST` judges the answer: on success a 303
 * to `https://<hostname>/_us/pass?g=<grant>`, the hostname being one the site has proven; a failed answer
 * is counted and gets the page again, harder. Every answer is an HTML page with the right status; none is
 * a redirect anywhere but there.
 */
export function challengeHandler(deps: Deps) {
  /** The ticket's refusals, as pages. */
  function refuseTicket(ctx: Context, lang: Language, check: Exclude<TicketCheck, Ok>) {
    if (check.kind === 'expired') return sendRefusal(ctx, lang, 410, 'expired', { back: check.back });
    if (check.kind === 'notVerified') return sendRefusal(ctx, lang, 403, 'notVerified');
    return sendRefusal(ctx, lang, 400, 'badLink');
  }

  /** Failed checks of this visitor today; a slow or absent hot store counts as none (the page still works). */
  async function failedSoFar(siteId: string, ip: string, ua: string): Promise<number> {
    try {
      return await failedChecks(deps, siteId, await visitorCodeOf(deps, siteId, ip, ua));
    } catch (err) {
      deps.logger.warn(`check page: failed checks not read (${String(err)})`);
      return 0;
    }
  }

  async function page(ctx: Context, lang: Language, ok: Ok, status: number, failed: number, notice?: 'failed' | 'stale') {
    const bits = bitsFor(ok.ticket.r, failed);
    const issuedAt = Math.floor(Date.now() / 1000);
    const challenge = await challengeOf(ok.passKey, ok.token, bits, issuedAt);
    sendCheckPage(
      ctx,
      lang,
      status,
      { action: ctx.path, ticket: ok.token, bits, issuedAt, challenge, host: ok.ticket.h },
      notice,
    );
  }

  /** A ticket already used leads back to the page, where the pass now lets the browser in. */
  const refuseUsed = (ctx: Context, lang: Language, ok: Ok) =>
    sendRefusal(ctx, lang, 410, 'used', { back: { host: ok.ticket.h, url: returnUrl(ok.ticket.h, ok.ticket.p) } });

  async function show(ctx: Context, lang: Language) {
    const check = await checkTicket(deps, deps.orm.em.fork(), ctx.query.t);
    if (check.kind !== 'ok') return refuseTicket(ctx, lang, check);
    // Back or reload after passing: say so rather than ask for the work again (a store that cannot say: the page).
    if (await deps.hot.get(usedKey(check.token)).catch(() => null)) return refuseUsed(ctx, lang, check);
    await page(ctx, lang, check, 200, await failedSoFar(check.siteId, ctx.ip, ctx.get('user-agent')));
  }

  async function answer(ctx: Context, lang: Language) {
    if (!ctx.is('application/x-www-form-urlencoded')) return sendRefusal(ctx, lang, 400, 'badLink');
    const form = new URLSearchParams((await readBody(ctx.req, ANSWER_BODY_LIMIT)).toString('utf8'));
    const now = Date.now();
    const check = await checkTicket(deps, deps.orm.em.fork(), form.get('t'), now);
    if (check.kind !== 'ok') return refuseTicket(ctx, lang, check);
    const ip = ctx.ip;
    const ua = ctx.get('user-agent');
    const failed = await failedSoFar(check.siteId, ip, ua);
    const outcome = await judgeAnswer(form, {
      passKey: check.passKey,
      token: check.token,
      risk: check.ticket.r,
      failedChecks: failed,
      now,
    });
    if (outcome.kind === 'noScript') return sendRefusal(ctx, lang, 400, 'needsScript');
    if (outcome.kind === 'stale') return page(ctx, lang, check, 200, failed, 'stale');
    if (outcome.kind === 'failed' || outcome.kind === 'automated') {
      // Global Privacy Control: not recorded on any path, behaviour memory included (the page is simply shown again).
      const gpc = ctx.get('sec-gpc').trim() === '1';
      let count = gpc ? failed : failed + 1;
      try {
        if (!gpc) count = await noteFailedCheck(deps, check.siteId, ip, ua);
      } catch (err) {
        deps.logger.warn(`check page: failed check not counted (${String(err)})`);
      }
      // An automated browser would fail again at once, page after page: it gets a page without the work.
      if (outcome.kind === 'automated') return sendRefusal(ctx, lang, 403, 'automated');
      return page(ctx, lang, check, 403, count, 'failed');
    }
    // Single use: the first passing answer of a ticket wins. When the hot store cannot say, the visitor
    // goes through (the gate fails open; a replay within the ticket's ten minutes gains one more day).
    const ttl = Math.max(1, check.ticket.e - Math.floor(now / 1000) + 60);
    let first = true;
    try {
      first = await deps.hot.setIfAbsent(usedKey(check.token), '1', ttl);
    } catch (err) {
      deps.logger.warn(`check page: single use not checked (${String(err)})`);
    }
    if (!first) return refuseUsed(ctx, lang, check);
    const { s, h, p } = check.ticket;
    const grant = await issueGrant(check.passKey, { s, h, p }, now);
    ctx.status = 303;
    ctx.set('Location', `https://${h}/_us/pass?g=${encodeURIComponent(grant)}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = '';
  }

  return async (ctx: Context) => {
    const lang = languageOf(ctx.get('accept-language'));
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST');
      return sendRefusal(ctx, lang, 405, 'badLink');
    }
    // Both counted before either is checked: the browser's own share, and the address's whole.
    const [browser, address] = await Promise.all([
      overBudget(deps.hot, 'check', ctx.ip, ctx.get('user-agent')),
      overBudget(deps.hot, 'checkAddress', ctx.ip),
    ]);
    if (browser || address) return sendRefusal(ctx, lang, 429, 'tooMany', { retryAfter: 60 });
    try {
      await (ctx.method === 'GET' ? show(ctx, lang) : answer(ctx, lang));
    } catch (err) {
      const e = toAppError(err);
      logFailure(deps.logger, `${ctx.method} ${ctx.path}`, e);
      if (e.status === 413) return sendRefusal(ctx, lang, 413, 'badLink');
      // A site or hostname deleted between two steps, a body cut off: the link no longer leads anywhere.
      if (e.status < 500) return sendRefusal(ctx, lang, 400, 'badLink');
      sendRefusal(ctx, lang, e.status === 503 ? 503 : 500, 'unavailable', { retryAfter: e.retryAfter ?? 5 });
      for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
    }
  };
}
