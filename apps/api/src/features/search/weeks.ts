// GET /v1/sites/{id}/search/weeks: the collected weekly rows (weeks start Monday, UTC), oldest first.
// Rows of a disconnected source stay and are listed.
import type { EntityManager } from '@mikro-orm/postgresql';
import { SEARCH_LIMITS, type SearchWeeksOutput, type SearchWeeksQuery } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';

/** The Monday (UTC) of the week holding `day` (YYYY-MM-DD). */
export function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

export const addWeeks = (monday: string, n: number) =>
  new Date(Date.parse(`${monday}T00:00:00Z`) + n * 7 * 86_400_000).toISOString().slice(0, 10);

interface WeekRow {
  week: string;
  source: 'primary' | 'secondary';
  clicks: string | null;
  impressions: string | null;
  ctr: number | null;
  position: number | null;
  pages: number | null;
  queries: number | null;
  links: string | null;
  top: SearchWeeksOutput['weeks'][number]['top'];
}

const num = (v: string | number | null) => (v === null ? null : Number(v));

export async function searchWeeks(
  em: EntityManager,
  actor: Actor,
  input: SearchWeeksQuery,
  now = new Date(),
): Promise<SearchWeeksOutput> {
  const site = await loadSite(em, actor, input.id);
  const to = mondayOf(now.toISOString().slice(0, 10));
  const from = addWeeks(to, -((input.weeks ?? SEARCH_LIMITS.defaultWeeks) - 1));
  const rows = await em.getConnection().execute<WeekRow[]>(
    `select to_char(week, 'YYYY-MM-DD') as week, source, clicks, impressions, ctr, position, pages, queries, links, top
       from search_weeks where site_id = ? and week between ?::date and ?::date order by week, source`,
    [site.id, from, to],
    'all',
  );
  return {
    from,
    to,
    weeks: rows.map((r) => ({
      week: r.week,
      source: r.source,
      clicks: num(r.clicks),
      impressions: num(r.impressions),
      ctr: r.ctr,
      position: r.position,
      pages: r.pages,
      queries: r.queries,
      links: num(r.links),
      top: r.top,
    })),
  };
}
