/**
 * The page script: cookie-free, zero dependencies, one IIFE.
 *
 *   <script defer data-site="pk_..." src="https://HOST/script.js"></script>
 *
 * Attributes of the script tag:
 * - `data-site`        the site's public key, `pk_` + 26 lowercase letters/digits. Malformed → the script does nothing.
 * - `data-page-type`   optional page type (sent as `p`).
 * - `data-journeys`    `"off"` → the pageviews are not used for journeys (sent as `j: 1`).
 * - `data-exp`         A/B exposures as comma-separated `key:variant` pairs, e.g.
 *                      `data-exp="pricing:b,hero:control"` → `x: { pricing: 'b', hero: 'control' }`.
 *                      Keys match `[a-z0-9_-]{1,64}`, variants are 1–64 characters; invalid pairs are skipped.
 * - `data-api`         optional collect URL (default: the script's own origin + `/collect`).
 *
 * Events: `window.unseen('signup', { label: 'pro', value: 9 })`. Calls made before the script loaded are
 * queued with this snippet placed before the script tag, and replayed once the script runs:
 *
 *   <script>window.unseen = window.unseen || function () { (unseen.q = unseen.q || []).push(arguments) }</script>
 *
 * Privacy: `navigator.globalPrivacyControl === true` → nothing is ever sent. No cookies, no localStorage;
 * sessionStorage holds only the per-tab page counter (`n`). Only pageviews of pages that became visible
 * are sent. Reports are `text/plain` JSON (no CORS preflight) via sendBeacon, else fetch with keepalive.
 */
type Args = [string, { label?: unknown; value?: unknown }?];
type Q = ((...a: Args) => void) & { q?: ArrayLike<unknown>[] };

(() => {
  try {
    const d = document;
    const w = window as unknown as { unseen?: Q };
    const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
    const loc = location;
    const el = d.currentScript as HTMLScriptElement | null;
    if (!el || nav.globalPrivacyControl === true) return;
    const attr = (n: string) => el.getAttribute(`data-${n}`);
    const k = attr('site') || '';
    if (!/^pk_[a-z0-9]{26}$/.test(k)) return;
    const api = attr('api') || `${new URL(el.src).origin}/collect`;
    const pageType = attr('page-type');
    const exp = attr('exp');
    let x: Record<string, string> | undefined;
    if (exp) {
      for (const pair of exp.split(',')) {
        const [key = '', v = ''] = pair.split(':').map((s) => s.trim());
        if (/^[a-z0-9_-]{1,64}$/.test(key) && v && v.length < 65) {
          x = x || {};
          x[key] = v;
        }
      }
    }
    const cookie = /(?:^|;\s*)us_internal=([^;]*)/.exec(d.cookie);
    const now = () => Date.now();
    const visible = () => d.visibilityState === 'visible';
    const on = (t: EventTarget, n: string, f: () => void) => t.addEventListener(n, f, true);
    const str = (s: string) => s.slice(0, 2048);

    const send = (o: Record<string, unknown>) => {
      try {
        o.k = k;
        o.id = id;
        o.u = str(url);
        if (cookie) o.m = `${cookie[1]}`.slice(0, 512);
        const body = JSON.stringify(o);
        if (!nav.sendBeacon?.(api, new Blob([body], { type: 'text/plain' }))) {
          fetch(api, {
            method: 'POST',
            body,
            keepalive: true,
            credentials: 'omit',
            headers: { 'Content-Type': 'text/plain' },
          }).catch(() => {});
        }
      } catch {}
    };

    // Per-pageview state.
    let id = '';
    let url = '';
    let ref = d.referrer;
    let path = '';
    let sent = false; // the pv went out
    let left = false; // the leave report went out
    let since = 0; // when the page last became visible (0 = hidden)
    let ms = 0; // visible time before `since`
    let depth = 0;
    let acted: 0 | 1 = 0;
    let held: Record<string, unknown>[] = []; // events waiting for the page's pageview

    const scroll = () => {
      const h = d.documentElement.scrollHeight;
      const s = h ? Math.round(((scrollY + innerHeight) / h) * 100) : 100;
      if (s > depth) depth = Math.min(s, 100);
    };

    const pageview = () => {
      if (sent || !visible()) return;
      sent = true;
      since = now();
      let n = 1;
      try {
        const ss = sessionStorage;
        n = +(ss.getItem('us_n') || 0) + 1;
        ss.setItem('us_n', `${n}`);
      } catch {}
      scroll();
      send({
        t: 'pv',
        r: str(ref),
        w: innerWidth,
        l: nav.language || '',
        z: Intl.DateTimeFormat().resolvedOptions().timeZone || '',
        n,
        p: pageType ? pageType.slice(0, 64) : undefined,
        j: attr('journeys') === 'off' ? 1 : undefined,
        x,
      });
      for (const e of held) send(e);
      held = [];
    };

    const leave = () => {
      if (!sent || left) return;
      left = true;
      if (since) ms += now() - since;
      since = 0;
      scroll();
      send({ t: 'leave', s: depth, d: Math.min(Math.round(ms), 86_400_000), i: acted });
    };

    const start = () => {
      id = '';
      for (const b of crypto.getRandomValues(new Uint8Array(16))) id += (b % 36).toString(36);
      url = loc.href;
      path = loc.pathname;
      sent = left = false;
      since = ms = depth = acted = 0;
      pageview();
    };

    // A client-side navigation: leave the previous page, count the new one.
    const route = (pathOnly?: boolean) => {
      const prev = url;
      if (pathOnly ? loc.pathname === path : loc.href.split('#')[0] === prev.split('#')[0]) return;
      leave();
      ref = prev;
      start();
    };
    const hist = history;
    for (const m of ['pushState', 'replaceState'] as const) {
      const orig = hist[m];
      hist[m] = function (this: History, ...a: Parameters<History['pushState']>) {
        orig.apply(this, a);
        try {
          route(m === 'replaceState');
        } catch {}
      };
    }
    on(window, 'popstate', () => route());
    on(d, 'visibilitychange', () => {
      if (!visible()) leave();
      else if (!sent) pageview();
      else if (!since && !left) since = now();
    });
    on(window, 'pagehide', leave);
    on(window, 'scroll', () => {
      acted = 1;
      scroll();
    });
    on(d, 'click', () => (acted = 1));
    on(d, 'keydown', () => (acted = 1));

    start();

    const queued = w.unseen?.q;
    w.unseen = (name, o) => {
      if (!name) return;
      const { label, value } = o || {};
      const e = {
        t: 'ev',
        e: `${name}`.slice(0, 128),
        el: label == null ? undefined : `${label}`.slice(0, 256),
        ev: typeof value === 'number' && Number.isFinite(value) ? value : undefined,
      };
      sent ? send(e) : held.push(e);
    };
    if (queued) for (const a of Array.from(queued)) w.unseen(...(Array.from(a) as Args));
  } catch {}
})();
