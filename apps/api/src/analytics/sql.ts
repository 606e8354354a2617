// SQL building for the stats engine. Identifiers and expressions come only from the catalogue;
// everything a request or a site setting gave travels as a server-side bind parameter ($n).
import type { Lane, MetricSet } from '@us/shared';
import { dimensionOf } from './catalogue.ts';
import type { RawRange } from './range.ts';
import type { BotWindowDef } from './site-ctx.ts';

/** Collects bind parameters and hands out their placeholders. */
export class Params {
  readonly values: unknown[] = [];
  /** The placeholder of a value, with an optional cast (`text`, `date`, `timestamptz`, `int`). */
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }
}

declare const rowType: unique symbol;

/**
 * One statement ready to run: its text, its bind parameters, and (as a type only) the row it gives back,
 * so the builder that writes the SQL also says what comes out of it.
 */
export interface Statement<Row> {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly [rowType]?: Row;
}

export function statement<Row>(sql: string, params: Params): Statement<Row> {
  return { sql, parameters: params.values };
}

/** A statement part counts per value (`groups`) or over every row (`totals`). */
export type Grouping = 'groups' | 'totals';

/** Site time zone as a parameter (bound once per statement). */
export function tzParam(p: Params, timezone: string): string {
  return p.add(timezone, 'text');
}

/** Local day of `at` (YYYY-MM-DD text). */
export const localDaySql = (tz: string, col = 'at') => `to_char((${col} at time zone ${tz})::date, 'YYYY-MM-DD')`;
/** Local hour of `at` (YYYY-MM-DDTHH:00 text). */
export const localHourSql = (tz: string, col = 'at') => `to_char(${col} at time zone ${tz}, 'YYYY-MM-DD"T"HH24:00')`;
/** Local ISO week of `at`: the date of its Monday (YYYY-MM-DD text). */
export const localWeekSql = (tz: string, col = 'at') => `to_char(date_trunc('week', ${col} at time zone ${tz}), 'YYYY-MM-DD')`;
/** Local month of `at` (YYYY-MM text). */
export const localMonthSql = (tz: string, col = 'at') => `to_char(${col} at time zone ${tz}, 'YYYY-MM')`;

/**
 * Rows of local days [from, to]: `at` from local midnight of `from` (or from `after`) to local midnight
 * after `to`, and the UTC `day` partitions that can hold them (zones are within a day of UTC).
 */
export function rangeCond(p: Params, tz: string, r: RawRange, col = 'at', dayCol = 'day'): string {
  const from = p.add(r.from, 'date');
  const to = p.add(r.to, 'date');
  const after = r.after ? `\n      and ${col} >= ${p.add(r.after, 'timestamptz')}` : '';
  return `${dayCol} between ${from} - 1 and ${to} + 1
      and ${col} >= (${from}::timestamp at time zone ${tz})
      and ${col} < ((${to} + 1)::timestamp at time zone ${tz})${after}`;
}

/**
 * ` and <day> = any(...)` when a statement is narrowed to some UTC `day` partitions (the per-day store
 * of the results and journeys routes, day-store/), else nothing.
 */
export function utcDaysCond(p: Params, days: readonly string[] | undefined, dayCol = 'day'): string {
  return days ? `\n      and ${dayCol} = any(${p.add([...days], 'date[]')})` : '';
}

/**
 * The lane a row counts in: its stored lane, except a human row inside a bot window counts as bot.
 * Events have no network columns, so a window naming a network does not apply to them.
 */
export function laneSql(p: Params, table: 'pageviews' | 'events' | 'requests', windows: BotWindowDef[]): string {
  const hasNetwork = table !== 'events';
  const conds: string[] = [];
  for (const w of windows) {
    if ((w.asn !== null || w.asOrg !== null) && !hasNetwork) continue;
    const parts = [`at >= ${p.add(w.from.toISOString(), 'timestamptz')}`, `at <= ${p.add(w.to.toISOString(), 'timestamptz')}`];
    if (w.country) parts.push(`country = ${p.add(w.country, 'text')}`);
    if (w.asn !== null) parts.push(`asn = ${p.add(w.asn, 'int')}`);
    if (w.asOrg !== null) parts.push(`lower(as_org) = lower(${p.add(w.asOrg, 'text')})`);
    conds.push(`(${parts.join(' and ')})`);
  }
  if (!conds.length) return 'lane';
  return `(case when lane = 'human' and (${conds.join(' or ')}) then 'bot' else lane end)`;
}

export function laneCond(p: Params, table: 'pageviews' | 'events' | 'requests', windows: BotWindowDef[], lane: Lane): string {
  return `${laneSql(p, table, windows)} = ${p.add(lane, 'text')}`;
}

export const NONE = '(none)';

/** `where` filters on a set's raw rows: dimension expression = value; `(none)` matches no value. */
export function whereConds(p: Params, set: MetricSet, where: Record<string, string>): string[] {
  return Object.entries(where).map(([name, value]) => {
    const expr = dimensionOf(set, name)?.sql;
    if (!expr) throw new Error(`no SQL for dimension ${name}`);
    return value === NONE ? `coalesce(${expr}, '') = ''` : `${expr} = ${p.add(value, 'text')}`;
  });
}

/** Quoted column alias of a count name (names come from the catalogue: letters only). */
export const q = (name: string) => `"${name.replace(/"/g, '')}"`;
