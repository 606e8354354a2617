// What every question of one site needs, resolved once per request: its time zone (an unknown one
// falls back to UTC), today and the first raw day in that zone, its bot windows and kept property keys.
import type { EntityManager } from '@mikro-orm/postgresql';
import { BOT_WINDOW_MAX_ASN, BOT_WINDOW_YEARS } from '@us/shared';
import { localToday, rawStartOf } from './range.ts';

export interface SiteCtx {
  em: EntityManager;
  siteId: string;
  timezone: string;
  windows: BotWindowDef[];
  today: string;
  rawStart: string;
  /** The custom property keys the site keeps in its rollups (settings `keptProperties`). */
  keptProperties: readonly string[];
  /** Only these UTC `day` partitions (results and journeys statements; day-store/). */
  utcDays?: readonly string[];
}

export interface BotWindowDef {
  from: Date;
  to: Date;
  country: string | null;
  /** `AS<number>` → asn, else the network's name (case-insensitive). */
  asn: number | null;
  asOrg: string | null;
}

/** A window's time the database can compare with (NaN, year 0 and years past 9999 are not). */
const inWindowYears = (d: Date) => d.getUTCFullYear() >= BOT_WINDOW_YEARS.from && d.getUTCFullYear() <= BOT_WINDOW_YEARS.to;

/** The site's bot windows, well-formed ones only. */
export function botWindowsOf(settings: Record<string, unknown> | null | undefined): BotWindowDef[] {
  const list = Array.isArray(settings?.botWindows) ? (settings.botWindows as unknown[]) : [];
  const out: BotWindowDef[] = [];
  for (const w of list) {
    if (!w || typeof w !== 'object') continue;
    const { from, to, country, network } = w as Record<string, unknown>;
    const f = typeof from === 'string' ? new Date(from) : null;
    const t = typeof to === 'string' ? new Date(to) : null;
    if (!f || !t || !inWindowYears(f) || !inWindowYears(t)) continue;
    const net = typeof network === 'string' && network.trim() ? network.trim() : null;
    const asMatch = net ? /^AS(\d+)$/i.exec(net) : null;
    // A window stored before its bounds were checked: one the database cannot compare with failed every question.
    if (asMatch && !(Number(asMatch[1]) <= BOT_WINDOW_MAX_ASN)) continue;
    out.push({
      from: f,
      to: t,
      country: typeof country === 'string' && country.trim() ? country.trim().toUpperCase() : null,
      asn: asMatch ? Number(asMatch[1]) : null,
      asOrg: net && !asMatch ? net : null,
    });
  }
  return out;
}

/** The site's kept property keys (strings only). */
function keptPropertiesOf(settings: Record<string, unknown> | null | undefined): string[] {
  const list = Array.isArray(settings?.keptProperties) ? (settings.keptProperties as unknown[]) : [];
  return list.filter((k): k is string => typeof k === 'string');
}

/** A zone both Intl and PostgreSQL know (sites are checked on save; an unknown one falls back to UTC). */
function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function siteCtx(
  em: EntityManager,
  site: { id: string; timezone: string; settings: Record<string, unknown> | null },
  now = new Date(),
): SiteCtx {
  const timezone = validZone(site.timezone) ? site.timezone : 'UTC';
  const today = localToday(timezone, now);
  return {
    em,
    siteId: site.id,
    timezone,
    windows: botWindowsOf(site.settings),
    today,
    rawStart: rawStartOf(today),
    keptProperties: keptPropertiesOf(site.settings),
  };
}
