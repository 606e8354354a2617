// The daily pull (features/search/search-pull-job.ts): for each connection due, the figures of its recent weeks (the
// last 12 until a pull of them has succeeded — the first, and the first after a stop or a connect — then the
// previous and the current week, which fills in daily), written as one row per site, source and week, with
// the property it came from. A pull is all or nothing: a provider error or quota, or an answer whose body
// cannot be read, leaves the stored weeks as they were, is shown on the connection ("last pull failed: …")
// and is retried with backoff (1, 2, 4… hours, at most a day). A pull whose connection was connected to
// another property meanwhile stores nothing. Figures a provider does not give are null; zero is measured,
// and a later pull lacking a figure keeps the one already known. Delegated access is checked again
// before every pull (access.ts); when it no longer holds, the connection says so and is not pulled.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Cipher } from '../../core/security/cipher.ts';
import { type AccessStatus, delegatedAccess } from './access.ts';
import { bingWeeks } from './bing-weeks.ts';
import { accessToken, type ServiceAccountKey } from './google.ts';
import { googleWeeks } from './google-weeks.ts';
import { ProviderError } from './provider-error.ts';
import { UnusableKey } from './signing-key.ts';
import type { WeekFigures } from './week-figures.ts';
import { addWeeks, mondayOf } from './weeks.ts';

export interface PullSetup {
  googleApi: string;
  bingApi: string;
  cipher: Cipher;
  /** This service's own account (delegated mode), or null. */
  ownKey: ServiceAccountKey | null;
}

export interface Due {
  site_id: string;
  source: 'primary' | 'secondary';
  mode: string | null;
  property: string;
  account: string | null;
  credentials_enc: string | null;
  last_pull_ok: boolean | null;
  access: AccessStatus;
  failures: number;
  /** When a pull of the last twelve weeks succeeded for what is connected; null: the next pull asks for twelve. */
  backfilled_at: Date | null;
}

const FIRST_WEEKS = 12;
const HOUR = 3600_000;

/** The weeks to ask for, oldest first: each a Monday and the last day asked (today in the current week). */
export function weeksToPull(today: string, first: boolean): { week: string; end: string }[] {
  const current = mondayOf(today);
  const n = first ? FIRST_WEEKS : 2;
  return Array.from({ length: n }, (_, i) => {
    const week = addWeeks(current, i - n + 1);
    const sunday = addWeeks(week, 1);
    const end = new Date(Date.parse(`${sunday}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    return { week, end: end > today ? today : end };
  });
}

/**
 * The weeks' figures, or the access status that stops the pull (delegated mode). `checked.access`
 * becomes 'ok' once delegated access was found to hold again.
 */
async function figuresOf(
  em: EntityManager,
  setup: PullSetup,
  c: Due,
  today: string,
  checked: { access: AccessStatus },
): Promise<WeekFigures[] | Exclude<AccessStatus, 'ok'>> {
  // Until a pull of the last twelve weeks has succeeded (after a connect or a stop), each pull asks for them.
  const weeks = weeksToPull(today, c.backfilled_at === null);
  if (c.source === 'secondary') {
    return bingWeeks(setup.bingApi, setup.cipher.decrypt(c.credentials_enc ?? ''), c.property, weeks, today);
  }
  const key =
    c.mode === 'delegated' ? setup.ownKey : (JSON.parse(setup.cipher.decrypt(c.credentials_enc ?? '')) as ServiceAccountKey);
  if (!key) {
    throw new ProviderError('Google', 0, 'delegated mode is no longer offered by this server (SEARCH_SERVICE_ACCOUNT_KEY unset)');
  }
  if (c.mode !== 'delegated') return googleWeeks(setup.googleApi, await accessToken(key), c.property, weeks);
  const check = await delegatedAccess(em, setup.googleApi, key, c.site_id, c.property);
  if (check.status !== 'ok') return check.status;
  checked.access = 'ok';
  return googleWeeks(setup.googleApi, check.token, c.property, weeks);
}

type Conn = ReturnType<EntityManager['getConnection']>;
type Trx = Parameters<Parameters<Conn['transactional']>[0]>[0];

/** Matches the connection the pull was taken for: the same property, mode and account (not connected again to another). */
const SAME_CONNECTION =
  'site_id = ? and source = ? and property = ? and mode is not distinct from ? and account is not distinct from ?';
const sameConnection = (c: Due) => [c.site_id, c.source, c.property, c.mode, c.account];

/**
 * Stores the weeks: a figure reported replaces the stored one, a figure not reported (null) keeps it (a week
 * of another property, were one left, is replaced whole). The time comes with the inserted row (its default):
 * Citus takes only immutable functions in DO UPDATE SET.
 */
async function store(conn: Conn, trx: Trx, c: Due, figures: WeekFigures[]): Promise<void> {
  const kept = (f: string) =>
    `case when search_weeks.property is not distinct from excluded.property then coalesce(excluded.${f}, search_weeks.${f}) else excluded.${f} end`;
  await conn.execute(
    `insert into search_weeks (site_id, source, property, week, clicks, impressions, ctr, position, pages, queries, links, top)
     select ?::uuid, ?, ?, w.week, w.clicks, w.impressions, w.ctr, w.position, w.pages, w.queries, w.links, w.top
       from jsonb_to_recordset(?::jsonb) w(week date, clicks bigint, impressions bigint, ctr float8, position float8,
                                           pages int, queries int, links bigint, top jsonb)
     on conflict (site_id, source, week) do update set
       ${['clicks', 'impressions', 'ctr', 'position', 'pages', 'queries', 'links', 'top'].map((f) => `${f} = ${kept(f)}`).join(', ')},
       property = excluded.property,
       updated_at = excluded.updated_at`,
    [c.site_id, c.source, c.property, JSON.stringify(figures)],
    'run',
    trx,
  );
}

/** Why a pull failed, as the connection shows it (a provider's own words; never a credential). */
function failureMessage(e: unknown): string {
  if (e instanceof ProviderError) return e.message;
  if (e instanceof UnusableKey) return `the stored key file is refused: ${e.message}`;
  return 'an unexpected error (see the server log)';
}

/** Connections pulled per run at most. */
const PULLS_PER_RUN = 500;
/** A run starts no new pull after this long (each takes up to dozens of provider calls of 10 s at most). */
const PULL_RUN_MS = 10 * 60_000;

/**
 * The connections due at `now` (access lost: not pulled again until the source is connected again), taken
 * workspace by workspace: the first due of each workspace, then the second… So a workspace with thousands of
 * connections (one per site, the same key everywhere) holds back no other's daily pull.
 */
export async function dueConnections(em: EntityManager, now: Date, limit: number, siteIds?: string[]): Promise<Due[]> {
  return em.getConnection().execute<Due[]>(
    `select site_id, source, mode, property, account, credentials_enc, last_pull_ok, access, failures, backfilled_at from (
       select c.*, row_number() over (partition by s.workspace_id order by c.next_pull_at nulls first, c.site_id, c.source) as turn
         from search_connections c join sites s on s.id = c.site_id
        where (c.next_pull_at is null or c.next_pull_at <= ?) and c.access <> 'access-lost'
          ${siteIds ? 'and c.site_id = any(?::uuid[])' : ''}
     ) d
     order by turn, next_pull_at nulls first, site_id, source limit ?`,
    siteIds ? [now, `{${siteIds.join(',')}}`, limit] : [now, limit],
    'all',
  );
}

/**
 * Pulls every connection due at `now`; answers how many pulled, failed and were stopped (delegated
 * access no longer holds), and the unexpected errors (not a provider's refusal: a credential that no
 * longer opens, a database failure) for the log. One connection's failure never stops the others.
 */
export async function pullDue(
  em: EntityManager,
  setup: PullSetup,
  now: Date,
  siteIds?: string[],
  opts: { perRun?: number; runMs?: number } = {},
): Promise<{ pulled: number; failed: number; stopped: number; unexpected: unknown[] }> {
  const conn = em.getConnection();
  const due = await dueConnections(em, now, opts.perRun ?? PULLS_PER_RUN, siteIds);
  const today = now.toISOString().slice(0, 10);
  const started = Date.now();
  let failed = 0;
  let stopped = 0;
  let pulled = 0;
  const unexpected: unknown[] = [];
  for (const c of due) {
    // The connections left wait for the next run (hourly), still due and first in their workspace's turn.
    if (Date.now() - started > (opts.runMs ?? PULL_RUN_MS)) break;
    pulled++;
    const checked = { access: c.access };
    const backfill = c.backfilled_at === null;
    try {
      const figures = await figuresOf(em, setup, c, today, checked);
      if (typeof figures === 'string') {
        stopped++;
        // A hostname verified again resumes the pulls: checked hourly, in this database only. The weeks missed
        // meanwhile are asked for again: twelve, until such a pull succeeds.
        await conn.execute(
          `update search_connections set access = ?, next_pull_at = ?, backfilled_at = null where ${SAME_CONNECTION}`,
          [figures, new Date(now.getTime() + HOUR), ...sameConnection(c)],
          'run',
        );
        continue;
      }
      // Under the connection's row lock, and only while it is still connected to what was pulled: connecting
      // another property (connections.ts) deletes the old one's weeks under the same lock.
      await conn.transactional(async (trx) => {
        const [still] = await conn.execute<unknown[]>(
          `select 1 from search_connections where ${SAME_CONNECTION} for update`,
          sameConnection(c),
          'all',
          trx,
        );
        if (!still) return;
        await store(conn, trx, c, figures);
        await conn.execute(
          `update search_connections set last_pull_at = ?, last_pull_ok = true, last_pull_message = null, failures = 0,
             access = 'ok', next_pull_at = ?, backfilled_at = coalesce(backfilled_at, ?) where ${SAME_CONNECTION}`,
          [now, new Date(now.getTime() + 24 * HOUR), backfill ? now : null, ...sameConnection(c)],
          'run',
          trx,
        );
      });
    } catch (e) {
      failed++;
      const hours = Math.min(24, 2 ** c.failures);
      await conn.execute(
        `update search_connections set last_pull_at = ?, last_pull_ok = false, last_pull_message = ?,
           failures = failures + 1, access = ?, next_pull_at = ? where ${SAME_CONNECTION}`,
        [
          now,
          `last pull failed: ${failureMessage(e)}`.slice(0, 500),
          checked.access,
          new Date(now.getTime() + hours * HOUR),
          ...sameConnection(c),
        ],
        'run',
      );
      if (!(e instanceof ProviderError) && !(e instanceof UnusableKey)) unexpected.push(e);
    }
  }
  return { pulled: pulled - failed - stopped, failed, stopped, unexpected };
}
