// A site's saved funnels: list, create, change, remove. At most FUNNEL_LIMITS.perSite per site, counted
// before the insert under the site's lock (sites/site-limit.ts).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type CreateFunnelInput,
  FUNNEL_LIMITS,
  type Funnel,
  type FunnelParams,
  type FunnelStep,
  type UpdateFunnelInput,
} from '@us/shared';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError } from '../../core/errors.ts';
import { checkSiteLimit } from '../sites/index.ts';

interface FunnelRow {
  id: string;
  name: string;
  steps: FunnelStep[];
  created_at: Date;
}

const COLUMNS = 'id, name, steps, created_at';

export const NO_FUNNEL = () => new AppError(404, 'No such funnel on this site: check the id with GET /v1/sites/{id}/funnels');

const toFunnel = (r: FunnelRow): Funnel => ({
  id: r.id,
  name: r.name,
  steps: r.steps.map((s) => ({ type: s.type, match: s.match })),
  createdAt: new Date(r.created_at).toISOString(),
});

export async function listFunnels(em: EntityManager, actor: Actor, siteId: string): Promise<{ funnels: Funnel[] }> {
  const site = await loadSite(em, actor, siteId);
  const rows = await em.execute<FunnelRow[]>(`select ${COLUMNS} from funnels where site_id = ? order by created_at, id`, [
    site.id,
  ]);
  return { funnels: rows.map(toFunnel) };
}

/** The funnel of the site (404 for an unknown id, another site's or a malformed one). */
export async function loadFunnel(em: EntityManager, siteId: string, funnelId: string): Promise<Funnel> {
  if (!isUuid(funnelId)) throw NO_FUNNEL();
  const [row] = await em.execute<FunnelRow[]>(`select ${COLUMNS} from funnels where id = ? and site_id = ?`, [funnelId, siteId]);
  if (!row) throw NO_FUNNEL();
  return toFunnel(row);
}

export async function createFunnel(em: EntityManager, actor: Actor, input: CreateFunnelInput): Promise<{ funnel: Funnel }> {
  const site = await loadSite(em, actor, input.id);
  const id = randomUUID();
  await em.transactional(async (tx) => {
    await checkSiteLimit(
      tx,
      site.id,
      'funnels',
      FUNNEL_LIMITS.perSite,
      `A site has at most ${FUNNEL_LIMITS.perSite} funnels: remove one, then add this one`,
    );
    await tx.execute('insert into funnels (id, site_id, name, steps) values (?, ?, ?, ?::jsonb)', [
      id,
      site.id,
      input.name,
      JSON.stringify(input.steps),
    ]);
  });
  return { funnel: await loadFunnel(em, site.id, id) };
}

export async function updateFunnel(em: EntityManager, actor: Actor, input: UpdateFunnelInput): Promise<{ funnel: Funnel }> {
  const site = await loadSite(em, actor, input.id);
  if (!isUuid(input.funnel)) throw NO_FUNNEL();
  // One statement: a field left out keeps its value (coalesce with null).
  const [row] = await em.execute<FunnelRow[]>(
    `update funnels set name = coalesce(?, name), steps = coalesce(?::jsonb, steps)
      where id = ? and site_id = ? returning ${COLUMNS}`,
    [input.name ?? null, input.steps ? JSON.stringify(input.steps) : null, input.funnel, site.id],
  );
  if (!row) throw NO_FUNNEL();
  return { funnel: toFunnel(row) };
}

export async function deleteFunnel(em: EntityManager, actor: Actor, input: FunnelParams): Promise<void> {
  const site = await loadSite(em, actor, input.id);
  const gone = isUuid(input.funnel)
    ? await em.execute('delete from funnels where id = ? and site_id = ? returning id', [input.funnel, site.id])
    : [];
  if (!gone.length) throw NO_FUNNEL();
}
