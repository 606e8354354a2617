import { type PageReport, visibleText } from '@us/shared';

/**
 * The page report schema (`PageReport` in `@us/shared`) checked by hand for the reports it certainly accepts as
 * they are: a page script's report costs far less here than through zod (docs/performance/history.md,
 * "Four small cuts the profile still showed"), on the busiest public route. Answers the report as zod would (known
 * fields only, the same values), or `undefined` for anything it is not sure of: a value zod would change (a URL
 * with white space to trim), a field it would refuse, a `__proto__` key. The caller then asks zod, whose answer
 * (and first issue) stays the contract. A test holds the two together over every field's edge values.
 */
export function pageReportAtOnce(value: unknown): PageReport | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const o = value as Record<string, unknown>;
  const base = baseOf(o);
  if (!base) return;
  switch (o.t) {
    case 'pv':
      return pageviewOf(o, base);
    case 'leave':
      if (!intIn(o.s, 0, 100) || !intIn(o.d, 0, 86_400_000) || (o.i !== 0 && o.i !== 1)) return;
      return { ...base, t: 'leave', s: o.s, d: o.d, i: o.i };
    case 'ev': {
      if (!textIn(o.e, 1, 128) || !visibleText(o.e)) return;
      const report: Extract<PageReport, { t: 'ev' }> = { ...base, t: 'ev', e: o.e };
      if (o.el !== undefined) {
        if (!textIn(o.el, 0, 256)) return;
        report.el = o.el;
      }
      if (o.ev !== undefined) {
        if (typeof o.ev !== 'number' || !Number.isFinite(o.ev)) return;
        report.ev = o.ev;
      }
      if (o.pr !== undefined) report.pr = o.pr;
      return report;
    }
    default:
      // Clicks (their label's refinement) and anything else: zod decides.
      return;
  }
}

const PUBLIC_KEY = /^pk_[a-z0-9]{26}$/;
const PAGEVIEW_ID = /^[A-Za-z0-9_-]{8,32}$/;
const EXPERIMENT_KEY = /^[a-z0-9_-]{1,64}$/;
/** White space zod's URL check would trim, or tabs and line breaks it would delete: left to zod. */
const URL_EDITED = /^\s|\s$|[\t\n\r]/;

type Base = Pick<PageReport, 'k' | 'u' | 'id' | 'm'>;

function textIn(v: unknown, min: number, max: number): v is string {
  return typeof v === 'string' && v.length >= min && v.length <= max;
}

function intIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

function baseOf(o: Record<string, unknown>): Base | undefined {
  const { k, u, id, m } = o;
  if (typeof k !== 'string' || !PUBLIC_KEY.test(k)) return;
  if (typeof id !== 'string' || !PAGEVIEW_ID.test(id)) return;
  if (!textIn(u, 0, 2048) || URL_EDITED.test(u) || !URL.canParse(u)) return;
  if (m === undefined) return { k, u, id };
  if (!textIn(m, 0, 512)) return;
  return { k, u, id, m };
}

function pageviewOf(o: Record<string, unknown>, base: Base): PageReport | undefined {
  const { r, w, l, z, n, p, j, x, pr, pd } = o;
  if (!textIn(r, 0, 2048) || !intIn(w, 0, 100_000) || !textIn(l, 0, 35) || !textIn(z, 0, 64)) return;
  if (!intIn(n, 1, 100_000)) return;
  const report: Extract<PageReport, { t: 'pv' }> = { ...base, t: 'pv', r, w, l, z, n };
  if (p !== undefined) {
    if (!textIn(p, 0, 64)) return;
    report.p = p;
  }
  if (j !== undefined) {
    if (j !== 1) return;
    report.j = 1;
  }
  if (x !== undefined) {
    const exposures = exposuresOf(x);
    if (!exposures) return;
    report.x = exposures;
  }
  // Properties: any shape, cleaned when rows are built (`cleanProperties`), as zod passes them.
  if (pr !== undefined) report.pr = pr;
  if (pd !== undefined) report.pd = pd;
  return report;
}

function exposuresOf(x: unknown): Record<string, string> | undefined {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return;
  const out: Record<string, string> = {};
  for (const key of Object.keys(x)) {
    const variant = (x as Record<string, unknown>)[key];
    if (key === '__proto__' || !EXPERIMENT_KEY.test(key) || !textIn(variant, 1, 64) || !visibleText(variant)) return;
    out[key] = variant;
  }
  return out;
}
