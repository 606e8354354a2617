import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Language } from './language.ts';
import { MESSAGES, type RefusalKind } from './messages/index.ts';
import { SOLVER_SOURCE } from './solver.ts';
import { WORK } from './work.ts';

/**
 * The HTML of the check page and of every refusal, with the headers they need. Our own markup only: no
 * third-party script, font or image; the CSS and the script are inline and run under a
 * Content-Security-Policy that allows nothing but this answer's nonce. Every value is escaped.
 */

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const STYLE = `:root{color-scheme:light dark}
body{font:17px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:34rem;margin:12vh auto;padding:0 1.25rem;color:#1b1b1b;background:#fff}
h1{font-size:1.4rem;line-height:1.3}
[hidden]{display:none!important}
progress{display:block;width:100%;height:.7rem;margin:1.2rem 0 .4rem}
button{font:inherit;padding:.6rem 1.4rem;border:0;border-radius:.4rem;background:#0b57d0;color:#fff;cursor:pointer}
button[aria-disabled=true]{background:#5f6b7a;cursor:progress}
button:focus-visible,a:focus-visible{outline:3px solid #e37400;outline-offset:2px}
.note{color:#4a4a4a;font-size:.92rem}
.msg{border-left:4px solid #b3261e;padding:.1rem .8rem}
@media (prefers-color-scheme:dark){body{background:#121212;color:#eee}.note{color:#bdbdbd}a{color:#8ab4f8}button{background:#3b78e7}}`;

/**
 * Runs the work by itself (eight parts, see work.ts), shows progress in the live region, then sends the
 * answer with the signals. It yields to the browser every 40 ms, so the page stays responsive.
 */
const DRIVER = `(function () {
  var form = document.getElementById('us-form'), status = document.getElementById('us-status');
  var bar = document.getElementById('us-progress'), go = document.getElementById('us-go');
  var parts = ${WORK.parts}, partBits = Number(form.getAttribute('data-b')) - ${WORK.partDiscountBits};
  var perPart = Math.pow(2, partBits), tryRange = usWork(form.getAttribute('data-c'), partBits);
  var found = [], next = 0, from = 0, started = Date.now(), said = Date.now();
  var timers = false, solved = false, sent = false;
  // Whether timers run at all: some automation freezes them; the answer says so.
  setTimeout(function () { timers = true; }, 0);
  // Shown only when the script runs: without it, only the noscript note speaks.
  bar.hidden = false;
  go.hidden = false;
  go.setAttribute('aria-disabled', 'true');
  status.textContent = form.getAttribute('data-start');
  form.addEventListener('submit', function (ev) {
    if (!solved || sent) { ev.preventDefault(); if (!solved) status.textContent = form.getAttribute('data-still'); return; }
    sent = true;
  });
  function hex(n) { return ('0000000' + n.toString(16)).slice(-8); }
  function finish() {
    solved = true;
    form.elements.n.value = found.map(hex).join('');
    form.elements.wd.value = navigator.webdriver ? '1' : '0';
    form.elements.tm.value = timers ? '1' : '0';
    form.elements.ms.value = String(Date.now() - started);
    bar.value = 100;
    status.textContent = form.getAttribute('data-done');
    go.removeAttribute('aria-disabled');
    sent = true;
    form.submit();
  }
  function step() {
    var until = Date.now() + 40, n;
    while (found.length < parts && Date.now() < until) {
      n = tryRange(next, 4096);
      if (n < 0) { next += 4096; continue; }
      found.push(n);
      next = n + 1;
      from = next;
    }
    if (found.length === parts) return finish();
    var pct = Math.min(99, Math.floor((100 * (found.length + Math.min(0.95, (next - from) / perPart))) / parts));
    bar.value = pct;
    // The live region speaks every two seconds at most: a screen reader is not flooded.
    if (Date.now() - said >= 2000) { said = Date.now(); status.textContent = form.getAttribute('data-working').replace('%s', String(pct)); }
    setTimeout(step, 0);
  }
  setTimeout(step, 0);
})();`;

export interface CheckForm {
  /** Where the form posts: the path the page was served on. */
  action: string;
  ticket: string;
  bits: number;
  issuedAt: number;
  challenge: string;
  /** The hostname the visitor returns to (named in the text, allowed as a form target). */
  host: string;
}

function headers(ctx: Context, lang: Language, csp: string) {
  // The ticket is in the address: never cached, never passed on as a Referer; never framed.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', csp);
  ctx.set('Content-Language', lang);
  ctx.set('Vary', 'Accept-Language');
  ctx.type = 'text/html; charset=utf-8';
}

function shell(lang: Language, nonce: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The check page: the work starts by itself; `notice` says why it runs again after a failed answer. */
export function sendCheckPage(ctx: Context, lang: Language, status: number, form: CheckForm, notice?: 'failed' | 'stale') {
  const m = MESSAGES[lang];
  const nonce = randomBytes(16).toString('base64');
  const host = escapeHtml(form.host);
  // form-action names the customer's host too: Chromium checks the answer's redirect against it.
  headers(
    ctx,
    lang,
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; form-action 'self' https://${form.host}; base-uri 'none'; frame-ancestors 'none'`,
  );
  ctx.status = status;
  const field = (name: string, value: string | number) =>
    `<input type="hidden" name="${name}" value="${escapeHtml(String(value))}">`;
  ctx.body = shell(
    lang,
    nonce,
    m.title,
    `<h1>${escapeHtml(m.title)}</h1>
${notice ? `<p class="msg">${escapeHtml(m[notice])}</p>\n` : ''}<p>${escapeHtml(m.intro(form.host))}</p>
<form id="us-form" method="post" action="${escapeHtml(form.action)}" data-c="${escapeHtml(form.challenge)}" data-b="${form.bits}" data-start="${escapeHtml(notice ? m[notice] : m.starting)}" data-working="${escapeHtml(m.working)}" data-done="${escapeHtml(m.done)}" data-still="${escapeHtml(m.stillWorking)}">
${field('t', form.ticket)}
${field('b', form.bits)}
${field('i', form.issuedAt)}
${field('n', '')}
${field('wd', '')}
${field('tm', '')}
${field('ms', '')}
<progress id="us-progress" max="100" value="0" aria-label="${escapeHtml(m.progressLabel)}" hidden></progress>
<p id="us-status" role="status" aria-live="polite" aria-label="${escapeHtml(m.statusLabel)}"></p>
<button type="submit" id="us-go" hidden>${escapeHtml(m.continue)}</button>
</form>
<noscript><p class="msg">${escapeHtml(m.noscript)}</p></noscript>
<p class="note">${escapeHtml(m.privacy(form.host)).replace(host, `<strong>${host}</strong>`)}</p>
<script nonce="${nonce}">${SOLVER_SOURCE}
${DRIVER}</script>`,
  );
}

/**
 * A refusal as a page (a person sees it in a browser): what happened and what to do. `back` is a link
 * to the page the visitor wanted, offered only when its host and path were checked.
 */
export function sendRefusal(
  ctx: Context,
  lang: Language,
  status: number,
  kind: RefusalKind,
  opts: { back?: { host: string; url: string }; retryAfter?: number } = {},
) {
  const m = MESSAGES[lang];
  const { title, text } = m.refusals[kind];
  const nonce = randomBytes(16).toString('base64');
  headers(
    ctx,
    lang,
    `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  );
  if (opts.retryAfter !== undefined) ctx.set('Retry-After', String(opts.retryAfter));
  ctx.status = status;
  const back = opts.back ? `\n<p><a href="${escapeHtml(opts.back.url)}">${escapeHtml(m.backTo(opts.back.host))}</a></p>` : '';
  ctx.body = shell(lang, nonce, title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>${back}`);
}
