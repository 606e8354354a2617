import type { Orm } from '@us/db';
import type { Logger } from '../../core/logger.ts';
import type { SiteDay } from './pending-days.ts';

// The site-days whose rollup failed (`rollup_failures`). Without a record, a day that fails every time (a bug
// its rows meet, a thread out of memory) was taken again by every run, first in its site's turn, and every
// run ended with a failure, which kept the job from catching up after a run that stopped at its bound: one
// tenant's broken day slowed every other tenant's rollups. Now a failed day is tried again an hour later, then
// two, four… up to a day apart (the job's runs between leave it out), and after a week it no longer holds back
// the raw partitions of every site (retention.ts).

const HOUR_MS = 3_600_000;
/** How long a day whose rollup keeps failing may hold back the dropping of old raw partitions. */
export const FAILING_DAY_HOLD_MS = 7 * 24 * HOUR_MS;
/** The longest wait between two tries of a failing day, in hours. */
const MAX_WAIT_HOURS = 24;
/** The error kept with a failure, at most (a message, not a stack). */
const ERROR_CHARS = 500;

/** Hours from the `attempts`-th failure to the next try: 1, 2, 4… up to a day. */
export const hoursUntilRetry = (attempts: number) => Math.min(2 ** Math.max(0, attempts - 1), MAX_WAIT_HOURS);

/** Records that a site-day's rollup failed at `now`: one more attempt, the next try later. */
async function recordRollupFailure(orm: Orm, sd: SiteDay, error: unknown, now: Date): Promise<void> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_CHARS);
  await orm.em.getConnection().execute(
    `insert into rollup_failures (site_id, day, attempts, first_failed_at, next_try_at, error)
     values (?::uuid, ?::date, 1, ?::timestamptz, ?::timestamptz + interval '1 hour', ?)
     on conflict (site_id, day) do update
       set attempts = rollup_failures.attempts + 1,
           next_try_at = excluded.first_failed_at
             + least(power(2, rollup_failures.attempts), ${MAX_WAIT_HOURS}) * interval '1 hour',
           error = excluded.error`,
    [sd.siteId, sd.day, now.toISOString(), now.toISOString(), message],
    'run',
  );
}

/** Forgets a site-day's failures once its rollup succeeded. */
export async function clearRollupFailure(orm: Orm, sd: SiteDay): Promise<void> {
  await orm.em
    .getConnection()
    .execute('delete from rollup_failures where site_id = ?::uuid and day = ?::date', [sd.siteId, sd.day], 'run');
}

/** A site-day's rollup failed in `job`'s run: logged with how often it has, and recorded for its next try. */
export async function noteRollupFailure(
  orm: Orm,
  sd: SiteDay,
  error: unknown,
  now: Date,
  job: string,
  logger?: Pick<Logger, 'error'>,
): Promise<void> {
  logger?.error(`${job}: site ${sd.siteId} day ${sd.day} failed (${(sd.failures ?? 0) + 1} times)`, error);
  await recordRollupFailure(orm, sd, error, now).catch((e) =>
    logger?.error(`${job}: the failure of site ${sd.siteId} day ${sd.day} could not be recorded`, e),
  );
}
