// Exit pages: the last page of each visit. No stored row says which pageview ended a visit (the next one
// may still come), so the figures derive it where they read: pageviews of a visitor code are ordered as
// sessions are (session-sql.ts: a session start sorts first among pageviews of the same instant), a visit
// runs from a session start up to the next one, and every pageview gets `exit_path`, the path of the last
// pageview of its visit. A visit that crosses the site's local midnight ends there for these figures
// (visitors are counted per local day too), so raw rows and the day's rollup derive the same exits.

/** Dimensions read from `exit_path` (the `sessions` set: each visit counted at its exit page). */
export const EXIT_DIMENSIONS = new Set(['exit_page']);

/** Whether a question names an exit dimension (as `by` or a `where` key). */
export const namesExit = (names: readonly string[]) => names.some((n) => EXIT_DIMENSIONS.has(n));

/**
 * The rows of `table` meeting `where`, each with `exit_path`, as a subquery aliased `alias` (so the
 * caller's unqualified column names still resolve). `visit`: the SQL expressions (over the table's
 * columns) that, with the visitor code, hold one visit's pageviews together: the UTC `day` (codes rotate
 * daily) and, when the rows span several local days, the local day.
 */
export function withExitPaths(table: string, where: string, visit: string[], alias: string): string {
  const partition = [...visit, 'visitor'].join(', ');
  const order = 'order by at, session_start desc, pageview_id';
  return `(
      select numbered.*, last_value(path) over (
          partition by ${partition}, visit_no ${order} rows between unbounded preceding and unbounded following
        ) as exit_path
      from (
        select *, sum(case when session_start then 1 else 0 end) over (
            partition by ${partition} ${order} rows unbounded preceding
          ) as visit_no
        from ${table}
        where ${where}
      ) numbered
    ) ${alias}`;
}
