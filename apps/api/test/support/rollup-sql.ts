// The rollup rows of one site-day as the job computed them in PostgreSQL until the day's rows were
// tallied in the process (analytics/rollup/rollup-streams.ts): plain selects, each reading the day's rows once and
// grouping them by several dimensions. Kept as the tests' second opinion: both must give the same rows.
import type { Orm } from '@us/db';
import type { MetricSet } from '@us/shared';
import { CompiledQuery } from 'kysely';
import {
  CATALOGUE,
  EVENT_CENTS_SQL,
  PAIR_SEPARATOR,
  ROLLUP_PAIRS,
  rollupDimensions,
  SEARCH_REFERRER_SQL,
} from '../../src/analytics/catalogue.ts';
import { namesExit, visitsWithExits } from '../../src/analytics/exit-paths.ts';
import type { RollupRow, RollupSource } from '../../src/analytics/rollup/rollup-format.ts';

/** A select giving RollupRows; `?` placeholders are bound in order from `params`. */
export interface RollupSelect {
  sql: string;
  params: unknown[];
}

const TABLES = ['pageviews', 'events', 'requests'] as const;

/** A grouping of one table's rows: the day total, one dimension, or a pair (value `a\x1fb`). */
interface Grouping {
  dimension: string;
  value: string;
}

/** The first metric set of a table: its dimensions are those of the table's one pass (pageviews for sessions too). */
const firstSetOf = (table: (typeof TABLES)[number]) =>
  (Object.keys(CATALOGUE) as MetricSet[]).find((s) => CATALOGUE[s].table === table) as MetricSet;

/**
 * The groupings of a metric set whose dimension names (one, or the two of a pair) `keep` takes, with
 * their value expressions over the narrow copy's columns `c<n>`; the day total is the grouping of no name.
 */
function groupingsOf(set: MetricSet, column: (sql: string) => string, keep: (names: string[]) => boolean): Grouping[] {
  const dims = CATALOGUE[set].dimensions;
  const text = (d: string) => `coalesce((${column(dims[d]?.sql as string)})::text, '')`;
  const singles = rollupDimensions(set)
    .filter((d) => keep([d]))
    .map((d) => ({ dimension: d, value: text(d) }));
  const pairs = (ROLLUP_PAIRS[set] ?? [])
    .filter(([a, b]) => keep([a, b]))
    .map(([a, b]) => ({ dimension: `${a}|${b}`, value: `${text(a)} || E'${PAIR_SEPARATOR}' || ${text(b)}` }));
  return [...(keep([]) ? [{ dimension: '', value: `''` }] : []), ...singles, ...pairs];
}

/** The narrow copy of one table's rows of the day, with the expressions its groupings name (`c<n>`). */
function narrowCopy(table: (typeof TABLES)[number], src: RollupSource, columns: string[], exprs: string[]): string {
  return `select ${[...columns, ...exprs.map((e, i) => `${e} as c${i}`)].join(', ')}
      from ${src.tables[table]} where ${src.where}`;
}

/** The groupings `keep` takes (default: every one but the exit pages'), their expressions collected once (`c<n>`). */
function groupingsWithColumns(set: MetricSet, keep: (names: string[]) => boolean = (names) => !namesExit(names)) {
  const exprs: string[] = [];
  const column = (sql: string) => {
    if (!exprs.includes(sql)) exprs.push(sql);
    return `c${exprs.indexOf(sql)}`;
  };
  return { groupings: groupingsOf(set, column, keep), exprs };
}

/** The groupings dealt round-robin over `parts` lists. */
const dealt = <T>(items: T[], parts: number): T[][] =>
  Array.from({ length: Math.min(parts, items.length) }, (_, part) => items.filter((_, i) => i % parts === part));

/** Rows of the unpivoted grouping results `g` (one values row per metric set), those with anything counted. */
const unpivot = (perSet: string[]) => `select x.metric_set, g.dimension, g.value, g.lane, x.count, x.visitors
          from g cross join lateral (values ${perSet.join(', ')}) x(metric_set, count, visitors)
         where x.count > 0 or x.visitors > 0`;

/**
 * The selects of one raw table's metric sets, its groupings dealt round-robin over `parts` selects
 * (each reads the day's rows once). Sets sharing a table (pageviews and sessions) are counted in the
 * same pass, each through its row filter; a value none of a set's rows has gets no row of that set.
 */
function tableSelects(table: (typeof TABLES)[number], src: RollupSource, parts: number): RollupSelect[] {
  const sets = (Object.keys(CATALOGUE) as MetricSet[]).filter((s) => CATALOGUE[s].table === table);
  const { groupings, exprs } = groupingsWithColumns(firstSetOf(table));
  const filters = sets.map((s, i) => `${CATALOGUE[s].rowFilter ?? 'true'} as f${i}`);
  const n = (i: number) => `count(*) filter (where f${i}) as n${i}`;
  if (table === 'requests') {
    const copy = narrowCopy(table, src, ['lane', ...filters], exprs);
    const branch = (g: Grouping) =>
      `select '${g.dimension}'::text as dimension, ${g.value} as value, lane, ${sets.map((_, i) => `${n(i)}, 0::bigint as v${i}`).join(', ')}
           from t group by lane, 2`;
    return [
      {
        sql: `with t as materialized (${copy}), g as (${groupings.map(branch).join(' union all ')}) ${unpivot(sets.map((s, i) => `('${s}', n${i}, v${i})`))}`,
        params: [...src.whereParams],
      },
    ];
  }
  // Pageviews also keep, per value, sessions from a search engine (search_sessions) and the visitors
  // with exactly one pageview of the value (single_page: n<pageviews> = 1 in their per-visitor row).
  // Events also keep, per value, the sum of their values in hundredths and how many carry one (event_value).
  const isPageviews = table === 'pageviews';
  const isEvents = table === 'events';
  const pv = sets.indexOf('pageviews');
  const searched = isPageviews ? [`coalesce(session_start and ${SEARCH_REFERRER_SQL}, false) as searched`] : [];
  const cents = isEvents ? [`case when ${CATALOGUE.events.rowFilter} then ${EVENT_CENTS_SQL} end as cents`] : [];
  const copy = narrowCopy(table, src, ['lane', 'visitor', ...filters, ...searched, ...cents], exprs);
  const perSet = [
    ...sets.map((s, i) => `('${s}', n${i}, v${i})`),
    ...(isPageviews ? [`('search_sessions', searched_sum, searched_v)`, `('single_page', single, single)`] : []),
    ...(isEvents ? [`('event_value', cents_sum, cents_n)`] : []),
  ];
  // Visitors: one row per (value, lane, visitor) first, then counted per value. Two hash groupings are
  // faster than count(distinct visitor), which sorts every row of the day per dimension
  // (docs/performance/history.md, "The rollup's 1 s goal").
  const branch = (g: Grouping) =>
    `select dimension, value, lane, ${[
      ...sets.map((_, i) => `sum(n${i}) as n${i}, count(*) filter (where n${i} > 0) as v${i}`),
      ...(isPageviews
        ? [
            `sum(searched) as searched_sum, count(*) filter (where searched > 0) as searched_v`,
            `count(*) filter (where n${pv} = 1) as single`,
          ]
        : []),
      ...(isEvents ? ['sum(cents) as cents_sum, sum(cents_n) as cents_n'] : []),
    ].join(', ')}
           from (select '${g.dimension}'::text as dimension, ${g.value} as value, lane, visitor,
                        ${[
                          ...sets.map((_, i) => n(i)),
                          ...(isPageviews ? ['count(*) filter (where searched) as searched'] : []),
                          ...(isEvents ? ['sum(cents) as cents, count(cents) as cents_n'] : []),
                        ].join(', ')}
                   from t group by lane, 2, visitor) per_visitor
          group by 1, 2, 3`;
  const selects = dealt(groupings, parts).map((mine) => ({
    sql: `with t as materialized (${copy}),
        g as (${mine.map(branch).join('\n        union all ')})
        ${unpivot(perSet)}`,
    params: [...src.whereParams],
  }));
  return isPageviews ? [...selects, leaveSelect(src), exitSelect(src)] : selects;
}

/**
 * Per pageviews grouping and value: the sum of the pageviews' deepest scroll and visible ms from their
 * leave reports (a leave may be stored up to a day after its pageview), and how many pageviews have
 * one (sets leave_scroll, leave_ms). Plain sums, no visitors: one select apart from the visitor ones.
 * (One GROUPING SETS pass instead of a grouping per dimension was barely faster, not worth the harder
 * reading: docs/performance/history.md, "The rollup's 1 s goal".)
 */
function leaveSelect(src: RollupSource): RollupSelect {
  const { groupings, exprs } = groupingsWithColumns('pageviews');
  const copy = `select lane, leave_scroll, leave_ms, ${exprs.map((e, i) => `${e} as c${i}`).join(', ')}
      from ${src.tables.pageviews}
      join (
        select l.pageview_id as leave_pageview_id, max(l.scroll_depth) as leave_scroll, sum(l.time_on_page_ms) as leave_ms
          from ${src.tables.page_leaves} l where ${src.leavesWhere} group by 1
      ) leaves on leaves.leave_pageview_id = pageview_id
      where ${src.where}`;
  const branch = (g: Grouping) =>
    `select '${g.dimension}'::text as dimension, ${g.value} as value, lane,
            sum(leave_scroll) as scroll_sum, count(leave_scroll) as scroll_n, sum(leave_ms) as ms_sum, count(leave_ms) as ms_n
       from t group by lane, 2`;
  return {
    sql: `with t as materialized (${copy}), g as (${groupings.map(branch).join('\n        union all ')})
        ${unpivot([`('leave_scroll', scroll_sum, scroll_n)`, `('leave_ms', ms_sum, ms_n)`])}`,
    params: [...src.leavesParams, ...src.whereParams],
  };
}

/**
 * Sessions by exit page, and by the pairs naming it: each visit counted at the path of its last pageview
 * (exit-paths.ts; the day's rows are one local day, so a visit is held together by UTC day and visitor).
 * The visits keep only the columns the groupings name (`c<n>`), besides their exit.
 */
function exitSelect(src: RollupSource): RollupSelect {
  const { groupings, exprs } = groupingsWithColumns('sessions', namesExit);
  const kept = exprs.map((e, i) => (e === EXIT_PATH ? null : `${e} as c${i}`)).filter((c) => c !== null);
  const visits = visitsWithExits(src.tables.pageviews, src.where, ['day'], ['lane', ...kept].join(', '), 'v');
  const columns = exprs.map((e, i) => (e === EXIT_PATH ? `exit_path as c${i}` : `c${i}`));
  const copy = `select lane, visit_visitor as visitor, ${columns.join(', ')} from ${visits}`;
  const branch = (g: Grouping) =>
    `select dimension, value, lane, sum(n) as n, count(*) as v
       from (select '${g.dimension}'::text as dimension, ${g.value} as value, lane, visitor, count(*) as n
               from t group by lane, 2, visitor) per_visitor
      group by 1, 2, 3`;
  return {
    sql: `with t as materialized (${copy}), g as (${groupings.map(branch).join('\n        union all ')})
        ${unpivot([`('sessions', n, v)`])}`,
    params: [...src.whereParams],
  };
}

/** The exit page's expression in the catalogue: the column visitsWithExits adds. */
const EXIT_PATH = CATALOGUE.sessions.dimensions.exit_page?.sql as string;

/**
 * Metric set `summary` (lane human, value ''): from_search (human sessions from a search engine),
 * single_page (human visitors with exactly one pageview that day), visible_ms (visible time of the
 * leave reports of that day's human pageviews, joined on pageview_id).
 */
function summarySelect(src: RollupSource): RollupSelect {
  const row = (dimension: string) =>
    `'summary'::text as metric_set, '${dimension}'::text as dimension, ''::text as value, 'human'::text as lane`;
  return {
    sql: `with pv as materialized (
        select pageview_id, visitor, session_start and ${SEARCH_REFERRER_SQL} as from_search
          from ${src.tables.pageviews} where ${src.where} and lane = 'human'),
      per_visitor as materialized (
        select count(*) as n, count(*) filter (where from_search) as searched from pv group by visitor)
      select ${row('from_search')}, coalesce(sum(searched), 0) as count, count(*) filter (where searched > 0) as visitors
        from per_visitor
      union all
      select ${row('single_page')}, count(*) filter (where n = 1), count(*) filter (where n = 1)
        from per_visitor
      union all
      select ${row('visible_ms')}, coalesce(sum(l.time_on_page_ms), 0), 0
        from ${src.tables.page_leaves} l join (select distinct pageview_id from pv) v on v.pageview_id = l.pageview_id
       where ${src.leavesWhere}`,
    params: [...src.whereParams, ...src.leavesParams],
  };
}

/**
 * Every select of one site-day's rollup. `parts`: how many selects share the groupings of the pageviews
 * table (the widest), so that many connections can work on it at once.
 */
export function rollupSelects(src: RollupSource, parts = 2): RollupSelect[] {
  return [
    ...tableSelects('pageviews', src, parts),
    ...tableSelects('events', src, 1),
    ...tableSelects('requests', src, 1),
    summarySelect(src),
  ];
}

/** The rollup rows of `src` as the SQL selects give them, one select after another. */
export async function sqlRollupRows(orm: Orm, src: RollupSource): Promise<RollupRow[]> {
  const db = orm.em.getConnection().getClient();
  const out: RollupRow[] = [];
  for (const s of rollupSelects(src, 2)) {
    const rows = await db.transaction().execute(async (trx) => {
      // Hash groupings in memory, as the job ran them.
      await trx.executeQuery(CompiledQuery.raw(`set local work_mem = '128MB'`));
      await trx.executeQuery(CompiledQuery.raw('set local enable_sort = off'));
      let n = 0;
      return (
        await trx.executeQuery<RollupRow>(
          CompiledQuery.raw(
            s.sql.replace(/\?/g, () => `$${++n}`),
            s.params,
          ),
        )
      ).rows;
    });
    for (const r of rows) out.push(r); // not push(...rows): a day of many pages passes the call stack's bound
  }
  return out;
}
