// A site's saved segments: list, create, change, remove. At most SEGMENT_LIMITS.perSite per site, counted
// before the insert under the site's lock (sites/site-limit.ts); a name is unique on its site in any case.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type CreateSegmentInput, SEGMENT_LIMITS, type Segment, type SegmentParams, type UpdateSegmentInput } from '@us/shared';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError } from '../../core/errors.ts';
import { checkSiteLimit } from '../sites/index.ts';
import { checkFilters } from './segment-filters.ts';

interface SegmentRow {
  id: string;
  name: string;
  filters: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

export const SEGMENT_COLUMNS = 'id, name, filters, created_at, updated_at';

export const NO_SEGMENT = () => new AppError(404, 'No such segment on this site: check the id with GET /v1/sites/{id}/segments');

const nameTaken = (name: string) =>
  new AppError(409, `This site already has a segment named “${name}”: choose another name, or change that segment`, {
    field: 'name',
  });

export const toSegment = (r: SegmentRow): Segment => ({
  id: r.id,
  name: r.name,
  filters: r.filters,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** A unique-name violation from PostgreSQL (two saves of one name at once: the index decides). */
const isNameClash = (e: unknown) => (e as { code?: string }).code === '23505';

export async function listSegments(em: EntityManager, actor: Actor, siteId: string): Promise<{ segments: Segment[] }> {
  const site = await loadSite(em, actor, siteId);
  const rows = await em.execute<SegmentRow[]>(
    `select ${SEGMENT_COLUMNS} from segments where site_id = ? order by lower(name), id`,
    [site.id],
  );
  return { segments: rows.map(toSegment) };
}

export async function createSegment(em: EntityManager, actor: Actor, input: CreateSegmentInput): Promise<{ segment: Segment }> {
  const site = await loadSite(em, actor, input.id);
  const filters = checkFilters(input.filters);
  const id = randomUUID();
  try {
    const row = await em.transactional(async (tx) => {
      await checkSiteLimit(
        tx,
        site.id,
        'segments',
        SEGMENT_LIMITS.perSite,
        `A site has at most ${SEGMENT_LIMITS.perSite} segments: remove one, then add this one`,
      );
      const [inserted] = await tx.execute<SegmentRow[]>(
        `insert into segments (id, site_id, name, filters) values (?, ?, ?, ?::jsonb) returning ${SEGMENT_COLUMNS}`,
        [id, site.id, input.name, JSON.stringify(filters)],
      );
      return inserted as SegmentRow;
    });
    return { segment: toSegment(row) };
  } catch (e) {
    throw isNameClash(e) ? nameTaken(input.name) : e;
  }
}

export async function updateSegment(em: EntityManager, actor: Actor, input: UpdateSegmentInput): Promise<{ segment: Segment }> {
  const site = await loadSite(em, actor, input.id);
  if (!isUuid(input.segment)) throw NO_SEGMENT();
  const filters = input.filters ? checkFilters(input.filters) : null;
  try {
    const [row] = await em.execute<SegmentRow[]>(
      `update segments set name = coalesce(?, name), filters = coalesce(?::jsonb, filters), updated_at = now()
        where id = ? and site_id = ? returning ${SEGMENT_COLUMNS}`,
      [input.name ?? null, filters ? JSON.stringify(filters) : null, input.segment, site.id],
    );
    if (!row) throw NO_SEGMENT();
    return { segment: toSegment(row) };
  } catch (e) {
    throw isNameClash(e) ? nameTaken(input.name ?? '') : e;
  }
}

export async function deleteSegment(em: EntityManager, actor: Actor, input: SegmentParams): Promise<void> {
  const site = await loadSite(em, actor, input.id);
  const gone = isUuid(input.segment)
    ? await em.execute('delete from segments where id = ? and site_id = ? returning id', [input.segment, site.id])
    : [];
  if (!gone.length) throw NO_SEGMENT();
}
