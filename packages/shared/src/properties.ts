import { cleanText } from './text.ts';

/**
 * Custom properties of pageviews and events (issue 40, item 2; docs/product/stats.md, "Properties"): up to
 * `PROPERTY_LIMITS.perReport` key → value pairs a page sends with a report. Cleaned and bounded at the door like
 * every other field: what does not fit is dropped and the report still counts, never a 400 for the report.
 */
export const PROPERTY_LIMITS = {
  /** Properties kept from one report; the rest are dropped (reason `limit`). */
  perReport: 30,
  keyMax: 64,
  valueMax: 256,
  /** Keys a site may keep in its daily rollups (`keptProperties`). */
  kept: 10,
  /** Keys the keys route lists (the most used first). */
  listed: 100,
} as const;

/** A property key once trimmed: 1-64 letters, digits, `_`, `-`, `.` or spaces (case kept). */
export const PROPERTY_KEY = /^[A-Za-z0-9_.\- ]{1,64}$/;

/** The stats dimension of a property: `prop:<key>` (`by=prop:plan`, `where.prop:plan=pro`). */
export const PROPERTY_PREFIX = 'prop:';

/** Why a property was dropped at intake (the label of `us_properties_dropped_total`). */
export type PropertyDrop = 'email' | 'digits' | 'limit';

/**
 * The privacy guard: values that look like an e-mail address or hold a run of 9 or more digits (card, phone,
 * account numbers) are never stored.
 */
const LONG_DIGITS = /\d{9,}/;

/**
 * Whether a whitespace-free run of `value` has the shape `x@y.z` (the pattern `\S+@\S+\.\S+`), read in one pass:
 * that pattern backtracks in cubic time over a run of "@" without a dot, and values come from strangers.
 */
function looksLikeEmail(value: string): boolean {
  if (!value.includes('@')) return false;
  for (const run of value.split(/\s+/)) {
    // The first "@" after the run's first character leaves the most room for a dot after it.
    const at = run.indexOf('@', 1);
    if (at > 0 && run.lastIndexOf('.', run.length - 2) >= at + 2) return true;
  }
  return false;
}

/** Whether `text` has more than `max` characters (code points, as `cleanText` cuts: an emoji is one). */
function longerThan(text: string, max: number): boolean {
  return text.length > max && [...text].length > max;
}

/** The key of a property as stored, or null when it cannot be one. */
export function propertyKey(raw: string): string | null {
  const key = raw.trim();
  return PROPERTY_KEY.test(key) ? key : null;
}

/** The key a stats dimension name (`prop:<key>`) names, or null when it names no property. */
export function propertyOfDimension(name: string): string | null {
  if (!name.startsWith(PROPERTY_PREFIX)) return null;
  const key = name.slice(PROPERTY_PREFIX.length);
  return PROPERTY_KEY.test(key) && key.trim() === key ? key : null;
}

export interface CleanedProperties {
  /** The properties to store, or null when none is left. */
  props: Record<string, string> | null;
  /** How many were dropped, by reason. */
  dropped: Record<PropertyDrop, number>;
}

function valueText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return null;
}

/**
 * A report's properties as stored: keys trimmed and checked, values made text (numbers and booleans too),
 * cleaned of control characters and trimmed; empty values skipped. Dropped, and counted: a key or value that
 * does not fit (too long, other characters, another type) and every property past the 30th (`limit`), a value
 * that looks like an e-mail address (`email`) or holds 9 or more digits in a row (`digits`).
 */
export function cleanProperties(raw: unknown): CleanedProperties {
  const dropped: Record<PropertyDrop, number> = { email: 0, digits: 0, limit: 0 };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    if (raw !== undefined && raw !== null) dropped.limit++;
    return { props: null, dropped };
  }
  const props: Record<string, string> = Object.create(null);
  let kept = 0;
  for (const [rawKey, rawValue] of Object.entries(raw)) {
    const key = propertyKey(rawKey);
    const text = valueText(rawValue);
    const value = text === null ? null : cleanText(text, PROPERTY_LIMITS.valueMax + 1).trim();
    if (value === '') continue;
    if (key === null || value === null || longerThan(value, PROPERTY_LIMITS.valueMax) || kept >= PROPERTY_LIMITS.perReport) {
      dropped.limit++;
    } else if (looksLikeEmail(value)) {
      dropped.email++;
    } else if (LONG_DIGITS.test(value)) {
      dropped.digits++;
    } else if (!(key in props)) {
      props[key] = value;
      kept++;
    }
  }
  return { props: kept ? { ...props } : null, dropped };
}
