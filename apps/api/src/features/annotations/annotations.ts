// A site's annotations: a day and a short text shown on its chart. Listed newest day first in pages (a
// keyset cursor: day and id of the last one shown); at most ANNOTATION_LIMITS.perSite per site, counted
// before the insert under the site's lock (sites/site-limit.ts).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ANNOTATION_LIMITS,
  type Annotation,
  type AnnotationListQuery,
  type AnnotationParams,
  type CreateAnnotationInput,
  type UpdateAnnotationInput,
} from '@us/shared';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { isDay } from '../../analytics/range.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { checkSiteLimit } from '../sites/index.ts';

interface AnnotationRow {
  id: string;
  day: string;
  text: string;
  created_at: Date;
}

const COLUMNS = `id, to_char(day, 'YYYY-MM-DD') as day, text, created_at`;

const NO_ANNOTATION = () =>
  new AppError(404, 'No such annotation on this site: check the id with GET /v1/sites/{id}/annotations');

const toAnnotation = (r: AnnotationRow): Annotation => ({
  id: r.id,
  day: r.day,
  text: r.text,
  createdAt: new Date(r.created_at).toISOString(),
});

/** The cursor after an annotation: `<day>_<id>`. */
const cursorOf = (a: Annotation) => `${a.day}_${a.id}`;

function readCursor(cursor: string): { day: string; id: string } {
  const [day, id] = cursor.split('_');
  if (!day || !isDay(day) || !id || !isUuid(id)) {
    throw badRequest('cursor', 'Pass the `next` of the previous page as cursor, unchanged');
  }
  return { day, id };
}

export async function listAnnotations(
  em: EntityManager,
  actor: Actor,
  input: AnnotationListQuery,
): Promise<{ annotations: Annotation[]; next: string | null }> {
  const site = await loadSite(em, actor, input.id);
  const limit = input.limit ?? ANNOTATION_LIMITS.defaultPage;
  const conds = ['site_id = ?'];
  const params: unknown[] = [site.id];
  if (input.from) conds.push('day >= ?::date') && params.push(input.from);
  if (input.to) conds.push('day <= ?::date') && params.push(input.to);
  if (input.cursor) {
    const after = readCursor(input.cursor);
    conds.push('(day, id) < (?::date, ?::uuid)');
    params.push(after.day, after.id);
  }
  const rows = await em.execute<AnnotationRow[]>(
    `select ${COLUMNS} from annotations where ${conds.join(' and ')} order by day desc, id desc limit ?`,
    [...params, limit + 1],
  );
  const annotations = rows.slice(0, limit).map(toAnnotation);
  const last = annotations.at(-1);
  return { annotations, next: rows.length > limit && last ? cursorOf(last) : null };
}

export async function createAnnotation(
  em: EntityManager,
  actor: Actor,
  input: CreateAnnotationInput,
): Promise<{ annotation: Annotation }> {
  const site = await loadSite(em, actor, input.id);
  const row = await em.transactional(async (tx) => {
    await checkSiteLimit(
      tx,
      site.id,
      'annotations',
      ANNOTATION_LIMITS.perSite,
      `A site has at most ${ANNOTATION_LIMITS.perSite} annotations: remove old ones, then add this one`,
    );
    const [inserted] = await tx.execute<AnnotationRow[]>(
      `insert into annotations (id, site_id, day, text) values (?, ?, ?::date, ?) returning ${COLUMNS}`,
      [randomUUID(), site.id, input.day, input.text],
    );
    return inserted as AnnotationRow;
  });
  return { annotation: toAnnotation(row) };
}

export async function updateAnnotation(
  em: EntityManager,
  actor: Actor,
  input: UpdateAnnotationInput,
): Promise<{ annotation: Annotation }> {
  const site = await loadSite(em, actor, input.id);
  if (!isUuid(input.annotation)) throw NO_ANNOTATION();
  const [row] = await em.execute<AnnotationRow[]>(
    `update annotations set day = coalesce(?::date, day), text = coalesce(?, text)
      where id = ? and site_id = ? returning ${COLUMNS}`,
    [input.day ?? null, input.text ?? null, input.annotation, site.id],
  );
  if (!row) throw NO_ANNOTATION();
  return { annotation: toAnnotation(row) };
}

export async function deleteAnnotation(em: EntityManager, actor: Actor, input: AnnotationParams): Promise<void> {
  const site = await loadSite(em, actor, input.id);
  const gone = isUuid(input.annotation)
    ? await em.execute('delete from annotations where id = ? and site_id = ? returning id', [input.annotation, site.id])
    : [];
  if (!gone.length) throw NO_ANNOTATION();
}
