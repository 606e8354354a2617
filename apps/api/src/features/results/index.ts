// The results wing's public surface: how goals match rows and the People sessions over raw rows, which the
// funnels wing builds its steps on.
export { type GoalMatcher, matcherOf, pathMatchSql } from './goal-match.ts';
export { humanEventsSql } from './session-sql.ts';
