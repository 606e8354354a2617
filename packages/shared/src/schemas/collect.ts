import { z } from 'zod';
import { BOT_ACTIONS } from '../bot-vocabulary.ts';
import { cleanText } from '../text.ts';

/**
 * The wire format between the page script / edge SDK / proxy mode and the collect endpoint
 * (`POST {COLLECT_URL}`, default `{BASE_URL}/collect`). Page reports travel as `text/plain` JSON so the
 * browser sends them without a CORS preflight; short keys keep the script small.
 */

/** What every page report carries. */
const PageBase = z.object({
  /** The site's public key (`pk_` + 26 letters/digits). */
  k: z.string().regex(/^pk_[a-z0-9]{26}$/),
  /** Full URL of the page (its hostname must be one of the site's; path and utm_* are read from it). */
  u: z.url().max(2048),
  /** Pageview id: random per confirmed pageview, ties events and the leave report to it. */
  id: z.string().regex(/^[A-Za-z0-9_-]{8,32}$/),
  /** The internal mark cookie (`us_internal`) when the browser carries one. */
  m: z.string().max(512).optional(),
});

/**
 * Custom properties of a pageview or event: key → value (text, number or boolean), up to 30 kept. Any shape is
 * accepted here and cleaned when rows are built (`cleanProperties`): a property that does not fit is dropped
 * and counted, the report still counts (the body limit bounds the whole).
 */
const PageProperties = z.unknown().optional();

/** A confirmed pageview (the page became visible), including client-side navigations. */
export const PageviewReport = PageBase.extend({
  t: z.literal('pv'),
  /** Referrer URL ('' when none); only its hostname is kept. */
  r: z.string().max(2048),
  /** Window width in CSS pixels. */
  w: z.number().int().min(0).max(100_000),
  /** navigator.language. */
  l: z.string().max(35),
  /** Intl time zone of the browser. */
  z: z.string().max(64),
  /** Per-tab page counter from sessionStorage: 1 = where a visit began in this tab. */
  n: z.number().int().min(1).max(100_000),
  /** data-page-type of the script tag. */
  p: z.string().max(64).optional(),
  /** 1 when data-journeys="off". */
  j: z.literal(1).optional(),
  /** A/B exposures from data-exp: experiment key → variant. */
  x: z
    .record(
      z.string().regex(/^[a-z0-9_-]{1,64}$/),
      z.string().min(1).max(64).refine(visibleText, 'Send a variant with at least one visible character'),
    )
    .optional(),
  /** Custom properties (`PageProperties`). */
  pr: PageProperties,
  /**
   * The page script's tag data (its dataset: data-* attributes as the browser names them), any shape: the
   * collector reads its A/B exposures (`exp`, when `x` is absent) and custom properties (`prop<Key>`).
   */
  pd: z.unknown().optional(),
});

/** Sent when the page is left (pagehide / visibilitychange to hidden). */
export const LeaveReport = PageBase.extend({
  t: z.literal('leave'),
  /** Deepest scroll position reached, in percent of the page. */
  s: z.number().int().min(0).max(100),
  /** Visible time on the page, in milliseconds. */
  d: z.number().int().min(0).max(86_400_000),
  /** 1 when the visitor clicked, typed or scrolled. */
  i: z.union([z.literal(0), z.literal(1)]),
});

/** Largest event value (either sign): sums of a day's values in hundredths stay exact in 64-bit integers. */
export const EVENT_VALUE_MAX = 1_000_000_000;

/** An event from site code (`window.unseen('signup', { label, value, props })`). */
export const EventReport = PageBase.extend({
  t: z.literal('ev'),
  /** Event name. */
  e: z.string().min(1).max(128).refine(visibleText, 'Send an event name with at least one visible character'),
  /** Optional label. */
  el: z.string().max(256).optional(),
  /**
   * Optional numeric value (an amount, a score): figures keep it to the hundredth. One beyond
   * ±EVENT_VALUE_MAX is dropped when the row is stored (the event still counts).
   */
  ev: z.number().finite().optional(),
  /** Custom properties (`PageProperties`). */
  pr: PageProperties,
});

/** Whether `text` keeps a visible character once cleaned as stored (control characters removed, trimmed). */
export function visibleText(text: string): boolean {
  return cleanText(text, text.length).trim() !== '';
}

/** Longest click label accepted; stored cut to the events' name column (128 characters). */
export const CLICK_LABEL_MAX = 2048;

/** A click label as stored: runs of white space (line breaks included) made one space, control characters removed, trimmed, cut to 128. */
export function clickLabel(label: string): string {
  return cleanText(label.replace(/\s+/g, ' '), 128).trim();
}

/**
 * An element click the page script recorded (`data-us` value, link path or `out:` + host, `button:` + text):
 * stored in `events` with kind `click` and the label as its name (`clickLabel`). A label with nothing left
 * once cleaned is refused.
 */
export const ClickReport = PageBase.extend({
  t: z.literal('c'),
  /** The element's label. */
  e: z
    .string()
    .max(CLICK_LABEL_MAX)
    .refine((label) => clickLabel(label) !== '', 'Send a label with at least one visible character'),
});

export const PageReport = z.discriminatedUnion('t', [PageviewReport, LeaveReport, EventReport, ClickReport]);
export type PageReport = z.infer<typeof PageReport>;

/** One server request recorded by the edge worker SDK (sent in batches after the response). */
export const RequestRecord = z.object({
  /** Epoch milliseconds when the request arrived at the edge. */
  at: z.number().int(),
  method: z.string().max(16),
  /** Request path (no query string). */
  path: z.string().max(2048),
  status: z.number().int().min(100).max(599),
  /** Edge cache status (HIT, MISS, DYNAMIC, ...) when known. */
  cache: z.string().max(32).optional(),
  /** Milliseconds the origin took. */
  ms: z.number().int().min(0).max(600_000),
  /** Client address, used in memory only for enrichment (never stored). */
  ip: z.string().max(64).optional(),
  /** Full user agent, used in memory only for classification (never stored). */
  ua: z.string().max(1024).optional(),
  country: z.string().length(2).optional(),
  asn: z.number().int().min(0).optional(),
  asOrg: z.string().max(256).optional(),
  /** The edge platform's own signals (e.g. Cloudflare's cf.botManagement / verifiedBot). */
  verifiedBot: z.boolean().optional(),
  botScore: z.number().int().min(0).max(100).optional(),
  /** TLS protocol version, e.g. "TLSv1.3" (stored only as one of the known versions). */
  tls: z.string().max(32).optional(),
  /**
   * A coarse class of the TLS client hello (`modern`: like current browsers; `legacy`: old versions or
   * ciphers only; `non-browser`: like an HTTP library; `unknown`), never a fingerprint. Any other text is
   * taken as `unknown`.
   */
  tlsClass: z.string().max(32).optional(),
  /** The response was an HTML document (a page a person would see). Without it, GET 200 of a path without a file extension (or .html, .htm, .php) counts as one. */
  html: z.boolean().optional(),
  /** What the gate decided for this request (decision order of the protection config); without it, the record is stored as served and "not decided". */
  action: z.enum(BOT_ACTIONS).optional(),
  /** Why, as the decision function words it (`rule: Admin`, `log: would challenge: …`); the first 256 characters are stored. */
  reason: z.string().max(1024).optional(),
  /** 0-100 for a browser, -1 for a declared bot. */
  risk: z.number().int().min(-1).max(100).optional(),
  /**
   * Only on a challenge whose hostname a check cannot return to (not a verified hostname of the site): that
   * hostname. Shown to the site's team as a setup problem when it is one of the site's hostnames; never stored.
   */
  noReturnHost: z.string().max(253).optional(),
});
export type RequestRecord = z.infer<typeof RequestRecord>;

/** Classes of a TLS client hello a sender may give (`tlsClass`, header `x-svc-client-tls`). */
export const TLS_CLASSES = ['modern', 'legacy', 'non-browser', 'unknown'] as const;
export type TlsClass = (typeof TLS_CLASSES)[number];

/** A batch from the edge SDK: `POST {COLLECT_URL}/requests` with header `x-svc-proxy: <site secret>`. */
/** A batch's id as the edge SDK gives it (a uuid; any 8 to 64 letters, digits, `-` or `_`). */
export const BATCH_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export const RequestBatch = z.object({
  /** The site's public key. */
  k: z.string().regex(/^pk_[a-z0-9]{26}$/),
  /**
   * The batch's own id, the same when it is sent again (its answer lost or late): its records are then stored, and
   * counted, once. Without it a batch sent twice is stored twice.
   */
  b: z.string().regex(BATCH_ID_PATTERN).optional(),
  records: z.array(RequestRecord).min(1).max(500),
});
export type RequestBatch = z.infer<typeof RequestBatch>;
