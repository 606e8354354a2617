// The daily pull (features/search/search-pull-job.ts): for each connection due, the figures of its recent weeks (the
// last 12 on the first pull, then the previous and the current week, which fills in daily), written as
// one row per site, source and week. A pull is all or nothing: a provider error or quota leaves the
// stored weeks as they were, is shown on the connection ("last pull failed: …") and is retried with
// backoff (1, 2, 4… hours, at most a day). Figures a provider does not give are null; zero is measured.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Cipher } from '../../core/security/cipher.ts';
import { bingWeeks } from './bing-weeks.ts';
import { accessToken, type ServiceAccountKey } from './google.ts';
import { googleWeeks } from './google-weeks.ts';
import { ProviderError } from './provider-error.ts';
import type { WeekFigures } from './week-figures.ts';
import { addWeeks, mondayOf } from './weeks.ts';

export interface PullSetup {
  googleApi: string;
  bingApi: string;
  cipher: Cipher;
  /** This service's own account (delegated mode), or null. */
  ownKey: ServiceAccountKey | null;
}

interface Due {
  site_id: string;
  source: 'primary' | 'secondary';
  mode: string | null;
  property: string;
  credentials_enc: string | null;
  last_pull_ok: boolean | null;
  failures: number;
}

const FIRST_WEEKS = 12;

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

async function figuresOf(setup: PullSetup, c: Due, today: string): Promise<WeekFigures[]> {
  const weeks = weeksToPull(today, c.last_pull_ok === null);
  if (c.source === 'primary') {
    const key =
      c.mode === 'delegated' ? setup.ownKey : (JSON.parse(setup.cipher.decrypt(c.credentials_enc ?? '')) as ServiceAccountKey);
    if (!key)
      throw new ProviderError(
        'Google',
        0,
        'delegated mode is no longer offered by this server (SEARCH_SERVICE_ACCOUNT_KEY unset)',
      );
    return googleWeeks(setup.googleApi, await accessToken(key), c.property, weeks);
  }
  return bingWeeks(setup.bingApi, setup.cipher.decrypt(c.credentials_enc ?? ''), c.property, weeks, today);
}

/**
 * Pulls every connection due at `now`; answers how many pulled and failed, and the unexpected errors
 * (not a provider's refusal: a credential that no longer opens, a database failure) for the log. One
 * connection's failure never stops the others.
 */
export async function pullDue(
  em: EntityManager,
  setup: PullSetup,
  now: Date,
  siteIds?: string[],
): Promise<{ pulled: number; failed: number; unexpected: unknown[] }> {
  const conn = em.getConnection();
  const due = await conn.execute<Due[]>(
    `select site_id, source, mode, property, credentials_enc, last_pull_ok, failures from search_connections
      where (next_pull_at is null or next_pull_at <= ?) ${siteIds ? 'and site_id = any(?::uuid[])' : ''}
      order by next_pull_at nulls first limit 500`,
    siteIds ? [now, `{${siteIds.join(',')}}`] : [now],
    'all',
  );
  const today = now.toISOString().slice(0, 10);
  let failed = 0;
  const unexpected: unknown[] = [];
  for (const c of due) {
    try {
      const figures = await figuresOf(setup, c, today);
      await conn.execute(
        `insert into search_weeks (site_id, source, week, clicks, impressions, ctr, position, pages, queries, links, top)
         select ?::uuid, ?, w.week, w.clicks, w.impressions, w.ctr, w.position, w.pages, w.queries, w.links, w.top
           from jsonb_to_recordset(?::jsonb) w(week date, clicks bigint, impressions bigint, ctr float8, position float8,
                                               pages int, queries int, links bigint, top jsonb)
         on conflict (site_id, source, week) do update set clicks = excluded.clicks, impressions = excluded.impressions,
           ctr = excluded.ctr, position = excluded.position, pages = excluded.pages, queries = excluded.queries,
           links = coalesce(excluded.links, search_weeks.links), top = excluded.top, updated_at = now()`,
        [c.site_id, c.source, JSON.stringify(figures)],
        'run',
      );
      await conn.execute(
        `update search_connections set last_pull_at = ?, last_pull_ok = true, last_pull_message = null, failures = 0,
           next_pull_at = ? where site_id = ? and source = ?`,
        [now, new Date(now.getTime() + 86_400_000), c.site_id, c.source],
        'run',
      );
    } catch (e) {
      failed++;
      const message = e instanceof ProviderError ? e.message : 'an unexpected error (see the server log)';
      const hours = Math.min(24, 2 ** c.failures);
      await conn.execute(
        `update search_connections set last_pull_at = ?, last_pull_ok = false, last_pull_message = ?,
           failures = failures + 1, next_pull_at = ? where site_id = ? and source = ?`,
        [now, `last pull failed: ${message}`.slice(0, 500), new Date(now.getTime() + hours * 3600_000), c.site_id, c.source],
        'run',
      );
      if (!(e instanceof ProviderError)) unexpected.push(e);
    }
  }
  return { pulled: due.length - failed, failed, unexpected };
}
