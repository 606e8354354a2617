// A segment's filters: checked against the catalogue when saved, and applied to a stats question that names
// the segment (`segment=` by name or id), where each filter becomes a where.<dimension> parameter unless the
// question gives that dimension itself.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MetricSet } from '@us/shared';
import { isUuid } from '../../actor/access.ts';
import { rollupDimensions } from '../../analytics/catalogue.ts';
import { badRequest } from '../../core/errors.ts';

/** The filters when every dimension is one the dashboard filters pageviews by (400 naming `filters.<name>`). */
export function checkFilters(filters: Record<string, string>): Record<string, string> {
  const known = rollupDimensions('pageviews');
  for (const name of Object.keys(filters)) {
    if (!known.includes(name)) {
      throw badRequest(`filters.${name}`, `Filter by one of: ${known.join(', ')} (see GET /v1/stats/catalogue)`);
    }
  }
  return { ...filters };
}

/**
 * The filters of the site's segment with id `nameOrId` or named so (any case); 400 naming `segment` when none. The id
 * wins: a segment may be named with another one's id, and either was answered.
 */
async function segmentFilters(em: EntityManager, siteId: string, nameOrId: string): Promise<Record<string, string>> {
  const id = isUuid(nameOrId) ? nameOrId : null;
  const [row] = await em.execute<{ filters: Record<string, string> }[]>(
    `select filters from segments where site_id = ? and (lower(name) = lower(?) or id = ?::uuid)
      order by id = ?::uuid desc limit 1`,
    [siteId, nameOrId, id, id],
  );
  if (!row) {
    throw badRequest('segment', `No segment named “${nameOrId}” on this site: see GET /v1/sites/{id}/segments`);
  }
  return row.filters;
}

/**
 * The question without `segment`, its segment's filters added as `where.<dimension>` parameters; a dimension
 * the question filters itself (a where.<dimension> parameter or a `where` object entry) keeps its own value.
 */
export async function withSegment<Q extends { segment?: string | undefined }>(
  em: EntityManager,
  siteId: string,
  question: Q,
  set: MetricSet = 'pageviews',
): Promise<Q> {
  const { segment, ...rest } = question;
  if (segment === undefined) return rest as Q;
  const filters = await segmentFilters(em, siteId, segment);
  // Segments filter pageviews; a metric set without one of their dimensions was refused naming a filter never sent.
  const lacking = Object.keys(filters).find((name) => !rollupDimensions(set).includes(name));
  if (lacking !== undefined) {
    throw badRequest(
      'segment',
      `Segment “${segment}” filters by ${lacking}, which ${set} cannot be filtered by: ask pageviews or sessions, or leave the segment out`,
    );
  }
  const own = (rest as { where?: Record<string, string> }).where ?? {};
  const out: Record<string, unknown> = { ...rest };
  for (const [name, value] of Object.entries(filters)) {
    if (`where.${name}` in out || name in own) continue;
    out[`where.${name}`] = value;
  }
  return out as Q;
}
