// Exit pages: the last page of each visit. No stored row says which pageview ended a visit (the next one
// may still come), so the figures derive it where they read: pageviews of a visitor code are ordered as
// sessions are (session-sql.ts: a session start sorts first among pageviews of the same instant), a visit
// runs from a session start up to the next one, and its exit is its last pageview: the one followed by a
// session start or by nothing. A visit that crosses the site's local midnight ends there for these
// figures (visitors are counted per local day too), so raw rows and the day's rollup derive the same exits.

/** The order of a visitor code's pageviews that numbers its visits (a session start first among pageviews of the same instant). */
export const VISIT_ORDER = 'at, session_start desc, pageview_id';

/** Dimensions read from `exit_path` (the `sessions` set: each visit counted at its exit page). */
export const EXIT_DIMENSIONS = new Set(['exit_page']);

/** Whether a question names an exit dimension (as `by` or a `where` key). */
export const namesExit = (names: readonly string[]) => names.some((n) => EXIT_DIMENSIONS.has(n));

/**
 * The visits of `table`'s rows meeting `where`: their session-start rows with `columns` (a select list
 * over the table's columns, `*` for all) and `exit_path`, as a subquery aliased `alias` (so the caller's
 * unqualified column names still resolve). `visit`: SQL expressions over the table's columns that, with
 * the visitor code, hold one visit's pageviews together: the UTC `day` (codes rotate daily) and, when the
 * rows span several local days, the local day. One sort numbers the visits and marks each one's last
 * pageview; starts and ends then meet in a hash join.
 */
export function visitsWithExits(table: string, where: string, visit: string[], columns: string, alias: string): string {
  const keys = [...visit.map((v, i) => `${v} as visit_k${i}`), 'visitor as visit_visitor'];
  const same = [...visit.map((_, i) => `visit_k${i}`), 'visit_visitor', 'visit_no'].map((c) => `s.${c} = e.${c}`);
  const partition = [...visit, 'visitor'].join(', ');
  return `(
      with numbered as materialized (
        select ${columns}, ${keys.join(', ')}, session_start as visit_start, path as visit_path,
          sum(case when session_start then 1 else 0 end) over visit_order as visit_no,
          coalesce(lead(session_start) over visit_order, true) as visit_ends
        from ${table}
        where ${where}
        window visit_order as (partition by ${partition} order by ${VISIT_ORDER})
      )
      select s.*, e.visit_path as exit_path
      from numbered s
      join numbered e on ${same.join(' and ')}
      where s.visit_start and e.visit_ends
    ) ${alias}`;
}
