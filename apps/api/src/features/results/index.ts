// The results wing's public surface: how goals match rows and the People sessions over raw rows, which the
// funnels wing builds its steps on.
export { asStoredPath, type GoalMatcher, matcherOf, pathMatchSql } from './goal-match.ts';
export { FROM_PAGEVIEW_SQL, humanEventsSql, PAGEVIEW_OF, SESSION_NUMBER_SQL } from './session-sql.ts';
