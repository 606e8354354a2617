/**
 * The page script: cookie-free, zero dependencies, one IIFE.
 *
 *   <script defer data-site="pk_..." src="https://HOST/script/pk_....js"></script>
 *
 * Built once per set of parts (EVENTS, CLICKS, NAVIGATION below; build.mjs): the site's address serves the
 * build its settings name, `/script.js` the one with every part. The core is pageviews and leave reports.
 *
 * Attributes of the script tag:
 * - `data-site`        the site's public key, `pk_` + 26 lowercase letters/digits. Malformed → the script does nothing.
 * - `data-page-type`   optional page type (sent as `p`).
 * - `data-journeys`    `"off"` → the pageviews are not used for journeys (sent as `j: 1`).
 * - `data-exp`         A/B exposures as comma-separated `key:variant` pairs, e.g. `data-exp="pricing:b,hero:control"`;
 *                      keys match `[a-z0-9_-]{1,64}`, variants are 1–64 characters; invalid pairs are skipped.
 * - `data-prop-<key>`  custom properties of the pageviews, e.g. `data-prop-plan="pro"` (key `plan`; the browser
 *                      names `data-prop-team-size` as `teamSize`, its dataset rule).
 *   Both travel as the tag's dataset (`pd`), read at each pageview; the collector parses them (`pageDataOf`).
 * - `data-api`         optional collect URL (default: the script's own origin + `/collect`).
 *
 * Clicks (part CLICKS): on links, buttons and elements marked `data-us="label"`, sent as `{ t: 'c', e: label }` (at most 20 per
 * page, none with `data-journeys="off"`), for journeys at element zoom.
 *
 * Events (part EVENTS): `window.unseen('signup', { label: 'pro', value: 9, props: { plan: 'pro' } })`. Calls made before the script loaded are
 * queued with this snippet placed before the script tag, and replayed once the script runs:
 *
 *   <script>window.unseen = window.unseen || function () { (unseen.q = unseen.q || []).push(arguments) }</script>
 *
 * Privacy: with `navigator.globalPrivacyControl` set, nothing is ever sent. No cookies, no localStorage;
 * sessionStorage holds only the per-tab page counter (`n`). Only pageviews of pages that became visible
 * are sent. Reports are `text/plain` JSON (no CORS preflight) via sendBeacon, else fetch with keepalive.
 *
 * The reports' one-letter keys are the wire format (`packages/shared/src/schemas/collect.ts`); every
 * other name here is local and minified away by the build, so it is written for the reader.
 */
type EventOptions = { label?: unknown; value?: unknown; props?: unknown };
type EventArgs = [name: string, options?: EventOptions];
/** `window.unseen`: the events API, with `q` holding the calls the queueing snippet kept. */
type Unseen = ((...args: EventArgs) => void) & { q?: ArrayLike<unknown>[] };
/** One report as sent: wire keys only. */
type Report = Record<string, unknown>;
/**
 * The parts a site turns on (site settings `scriptFeatures`), fixed per build by build.mjs (esbuild `define`):
 * each build keeps only the parts it names, and the minifier drops the rest. `/script.js` has them all.
 */
declare const EVENTS: boolean; // `window.unseen(...)`: custom events and the queued calls
declare const CLICKS: boolean; // element clicks for journeys at element zoom
declare const NAVIGATION: boolean; // single-page apps: a pageview per history.pushState/replaceState/popstate
declare const TAG_DATA: boolean; // the tag's data-exp (A/B exposures) and data-prop-<key> (custom properties)

(() => {
  try {
    const doc = document;
    const win = window as Window & { unseen?: Unseen };
    const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
    const loc = location;
    const tag = doc.currentScript as HTMLScriptElement | null;

    // ── Privacy checks: with Global Privacy Control (or no tag to read) nothing is ever sent. ──
    if (!tag || nav.globalPrivacyControl) return;

    // ── Configuration from the tag: the site key (malformed → do nothing), collect URL, page type. The A/B exposures
    // (data-exp) and custom properties (data-prop-<key>) go as the tag's dataset (`pd`), read by the collector. ──
    const attr = (name: string) => tag.getAttribute(`data-${name}`);
    const siteKey = attr('site') || '';
    if (!/^pk_[a-z0-9]{26}$/.test(siteKey)) return;
    const collectUrl = attr('api') || `${new URL(tag.src).origin}/collect`;
    const pageType = attr('page-type');
    // The internal-traffic mark (first-party cookie `us_internal`, set by an internal link) goes with every report as `m`.
    const internalMark = /(?:^|;\s*)us_internal=([^;]*)/.exec(doc.cookie);

    // Small helpers.
    const now = () => Date.now();
    const isVisible = () => !doc.hidden;
    const listen = (target: EventTarget, type: string, handler: (event: Event) => void) =>
      target.addEventListener(type, handler, true);
    const clipUrl = (url: string) => url.slice(0, 2048);

    // ── The current page: what its reports carry and what its leave report measures. ──
    let pageviewId = '';
    let pageUrl = '';
    let referrer = doc.referrer; // then the previous page's URL after a client-side navigation
    let pagePath: string | undefined; // navigation only
    let pageviewSent = false;
    let leaveSent = false;
    let visibleSince = 0; // when the page last became visible (0 = hidden)
    let visibleMs = 0; // visible time before `visibleSince`
    let scrollDepth = 0; // deepest scroll position, in percent
    let interacted: 0 | 1 = 0; // clicked, typed or scrolled
    let heldEvents: Report[] | undefined; // events only: those waiting for the page's pageview
    let clicksLeft = 0; // click reports this page may still send: 20 from its pageview, 0 with data-journeys="off"

    // ── The page counter: per tab in sessionStorage; 1 = where a visit began in this tab. ──
    const countPage = () => {
      let pageCount = 1;
      try {
        const storage = sessionStorage;
        pageCount = +(storage.getItem('us_n') as string) + 1; // +null is 0
        storage.setItem('us_n', pageCount as unknown as string); // stored as its text
      } catch {}
      return pageCount;
    };

    // ── Reports and sending: every report gets the site key, pageview id, URL and internal mark. ──
    const sendReport = (report: Report) => {
      try {
        report.k = siteKey;
        report.id = pageviewId;
        report.u = clipUrl(pageUrl);
        if (internalMark) report.m = (internalMark[1] as string).slice(0, 512);
        const body = JSON.stringify(report);
        // A string body goes as `text/plain;charset=UTF-8` either way: a simple request, no preflight.
        // biome-ignore lint/complexity/useOptionalChain: at es2017 `?.` compiles to a temporary and a .call(), 12 B more minified
        if (!(nav.sendBeacon && nav.sendBeacon(collectUrl, body))) {
          fetch(collectUrl, { method: 'POST', body, keepalive: true, credentials: 'omit' }).catch(() => {});
        }
      } catch {}
    };

    // ── Pageviews: sent once the page is visible, then the events held for it. ──
    const measureScroll = () => {
      const height = doc.documentElement.scrollHeight;
      const depth = height ? Math.round(((scrollY + innerHeight) / height) * 100) : 100;
      if (depth > scrollDepth) scrollDepth = Math.min(depth, 100);
    };

    const sendPageview = () => {
      if (pageviewSent || !isVisible()) return;
      pageviewSent = true;
      visibleSince = now();
      const pageCount = countPage();
      clicksLeft = attr('journeys') === 'off' ? 0 : 20; // read at each pageview, unlike the other attributes
      measureScroll();
      sendReport({
        t: 'pv',
        r: clipUrl(referrer),
        w: innerWidth,
        l: nav.language || '',
        z: Intl.DateTimeFormat().resolvedOptions().timeZone || '',
        n: pageCount,
        p: pageType ? pageType.slice(0, 64) : undefined,
        j: clicksLeft ? undefined : 1, // data-journeys="off"
        // The tag's data-* attributes as the browser names them (dataset): the collector keeps its data-prop-<key>
        // ones as custom properties. Read at each pageview, so a single-page app may change them.
        pd: TAG_DATA ? tag.dataset : undefined,
      });
      if (EVENTS) {
        for (const event of heldEvents || []) sendReport(event);
        heldEvents = undefined;
      }
    };

    // A new page (the first, or after a client-side navigation): fresh id and measures, then its pageview.
    const startPage = () => {
      pageviewId = '';
      for (const byte of crypto.getRandomValues(new Uint8Array(16))) pageviewId += (byte % 36).toString(36);
      pageUrl = loc.href;
      if (NAVIGATION) pagePath = loc.pathname;
      pageviewSent = leaveSent = false;
      visibleSince = visibleMs = scrollDepth = interacted = clicksLeft = 0;
      sendPageview();
    };

    // ── Leave reports: once per page, when it is hidden or left; visible time counts only while shown. ──
    const sendLeave = () => {
      if (!pageviewSent || leaveSent) return;
      leaveSent = true;
      if (visibleSince) visibleMs += now() - visibleSince;
      visibleSince = 0;
      measureScroll();
      sendReport({ t: 'leave', s: scrollDepth, d: Math.min(visibleMs, 86_400_000), i: interacted });
    };
    listen(doc, 'visibilitychange', () => {
      if (!isVisible()) sendLeave();
      else if (!pageviewSent) sendPageview();
      else if (!visibleSince && !leaveSent) visibleSince = now();
    });
    listen(win, 'pagehide', sendLeave);
    listen(win, 'scroll', () => {
      interacted = 1;
      measureScroll();
    });
    // ── Element clicks for journeys (not on data-journeys="off" pages; 20 per page), labelled without personal data:
    // the closest [data-us] → its value; a[href] → its path (same origin) or `out:` + host; a button → `button:` + text. ──
    listen(doc, 'click', (event) => {
      interacted = 1;
      if (CLICKS) {
        const target = event.target as Element;
        if (!clicksLeft || !target.closest) return;
        // biome-ignore lint/suspicious/noExplicitAny: one of three kinds of element; typing each costs bytes for nothing
        let el: any = target.closest('[data-us]');
        const label = el
          ? el.dataset.us.trim().slice(0, 64)
          : // biome-ignore lint/suspicious/noAssignInExpressions: the compact form is the point here
            (el = target.closest('a[href],button,[role=button],input[type=submit]')) &&
            (el.href
              ? el.host === loc.host
                ? el.pathname
                : `out:${el.host}`
              : // biome-ignore lint/performance/useDomNodeTextContent: the rendered text has its spaces collapsed already (the collector collapses the rest); one read per click
                `button:${(el.innerText || el.value || '').slice(0, 40)}`);
        if (label) {
          clicksLeft--;
          sendReport({ t: 'c', e: label });
        }
      }
    });
    listen(doc, 'keydown', () => (interacted = 1));

    // ── Client-side navigation: a new URL (ignoring the #hash; replaceState: a new path) leaves the page and starts the next. ──
    if (NAVIGATION) {
      const onNavigation = (replaced?: boolean) => {
        const previousUrl = pageUrl;
        if (replaced ? loc.pathname === pagePath : loc.href.split('#')[0] === previousUrl.split('#')[0]) return;
        sendLeave();
        referrer = previousUrl;
        startPage();
      };
      const hist = history;
      for (const method of ['pushState', 'replaceState'] as const) {
        const original = hist[method];
        hist[method] = function (this: History, ...args: Parameters<History['pushState']>) {
          original.apply(this, args);
          try {
            onNavigation(method === 'replaceState');
          } catch {}
        };
      }
      listen(win, 'popstate', () => onNavigation());
    }

    startPage();

    // ── Events queue: `window.unseen(name, { label, value })`; held until the pageview, queued calls replayed. ──
    if (EVENTS) {
      // biome-ignore lint/complexity/useOptionalChain: at es2017 `?.` compiles to a temporary and a null check, 15 B more minified
      const queuedCalls = win.unseen && win.unseen.q;
      win.unseen = (name, options) => {
        // The page's own call: nothing it passes (a Symbol, a throwing toString) may throw back into the page.
        try {
          if (!name) return;
          const { label, value, props } = options || {};
          const event: Report = {
            t: 'ev',
            e: `${name}`.slice(0, 128),
            el: label == null ? undefined : `${label}`.slice(0, 256),
            ev: Number.isFinite(value) ? value : undefined,
            pr: props, // cleaned and bounded by the collector (30 properties; keys ≤ 64, values ≤ 256)
          };
          // biome-ignore lint/suspicious/noAssignInExpressions: the list exists only once an event waits (the core has none)
          pageviewSent ? sendReport(event) : (heldEvents = heldEvents || []).push(event);
        } catch {}
      };
      if (queuedCalls) for (const call of Array.from(queuedCalls)) win.unseen(...(Array.from(call) as EventArgs));
    }
  } catch {}
})();
