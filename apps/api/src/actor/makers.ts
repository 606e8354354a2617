/**
 * A shared link or an e-mail report acts for the person who made it (`created_by`: the signed-in person,
 * or the maker of the token used): it works only while that person is a member of the link's or
 * report's workspace. When they leave (removed, leaving themselves, their account deleted), it stops
 * until an owner takes it over; if they join again, it works again. Checked when it is used, so no
 * departure has to remember to stop it.
 *
 * The SQL condition, for a table aliased `alias` with `workspace_id` and `created_by` columns.
 */
export const makerIsMember = (alias: string) =>
  `exists (select 1 from memberships m where m.workspace_id = ${alias}.workspace_id and m.user_id = ${alias}.created_by)`;
