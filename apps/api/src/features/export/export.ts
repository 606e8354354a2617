// POST /v1/sites/{id}/export: counts the budgets, lists the raw-record files of the range (one per kind
// and UTC hour that has records, at most 20,000; in one of the workspace's stats slots), records the export and answers the six files with
// links valid one hour. Every file is written when its link is fetched, streamed from the stats pool
// (faces/downloads.ts), so an export costs nothing until downloaded and never holds a day in memory.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { EXPORT_FILES, EXPORT_LIMITS, type ExportInput, type ExportOutput } from '@us/shared';
import { loadSite, workspaceIdOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { dayAdvice, isDay } from '../../analytics/range.ts';
import { inWorkspaceSlot } from '../../analytics/site-slot.ts';
import type { Deps } from '../../core/deps.ts';
import { badRequest } from '../../core/errors.ts';
import { takeExportBudget } from './limits.ts';
import { makeLink } from './links.ts';
import { archiveHours } from './raw-files.ts';

export const downloadUrl = (deps: Deps, token: string) => `${deps.urls.base}/v1/downloads/${token}`;

export async function exportSite(deps: Deps, em: EntityManager, actor: Actor, input: ExportInput): Promise<ExportOutput> {
  const today = new Date().toISOString().slice(0, 10);
  const to = input.to ?? today;
  const from = input.from ?? null;
  if (!isDay(to)) throw badRequest('to', dayAdvice('to'));
  if (from !== null && !isDay(from)) throw badRequest('from', dayAdvice('from'));
  if (from !== null && from > to) throw badRequest('from', 'Give a from day on or before to');
  const site = await loadSite(em, actor, input.id);
  const workspaceId = workspaceIdOf(actor);
  // The listing counts the range's records on the stats pool: inside one of the workspace's stats slots, as a
  // question (concurrent exports held the pool for every tenant), and a refusal for a full slot spends no export.
  // The export's instant: its listing and its files hold the records before it (the hour it is made in goes on).
  const createdAt = new Date();
  const hours = await inWorkspaceSlot(deps, workspaceId, async () => {
    const giveBack = await takeExportBudget(deps.hot, workspaceId, site.id);
    try {
      return await archiveHours(deps.statsOrm.em.fork(), site.id, { from, to }, EXPORT_LIMITS.archiveFiles, createdAt);
    } catch (err) {
      // No export was made (the listing timed out, say): a retry spends nothing more.
      await giveBack();
      throw err;
    }
  });
  const archive = hours.slice(0, EXPORT_LIMITS.archiveFiles);
  const id = randomUUID();
  await em
    .getConnection()
    .execute(
      `insert into exports (id, site_id, workspace_id, created_at, range_from, range_to, archive) values (?, ?, ?, ?, ?, ?, ?::jsonb)`,
      [id, site.id, workspaceId, createdAt, from, to, JSON.stringify(archive)],
      'run',
    );
  const files = EXPORT_FILES.map((name) => {
    const link = makeLink(deps.ciphers.downloads, id, name, createdAt.getTime());
    return { name, url: downloadUrl(deps, link.token), expiresAt: new Date(link.expires * 1000).toISOString() };
  });
  return {
    id,
    createdAt: createdAt.toISOString(),
    from,
    to,
    files,
    archive: {
      files: archive.length,
      records: archive.reduce((n, f) => n + f.records, 0),
      complete: hours.length <= EXPORT_LIMITS.archiveFiles,
    },
  };
}
