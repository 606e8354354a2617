import { ExportInput, ExportOutput } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { exportSite } from './export.ts';

export const exportRouter = router({
  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'export:read',
      // Not read-only: an export is recorded and spends the hourly budget, so a retried call must not
      // spend it twice (a repeat with the same key answers the first export).
      idempotent: true,
      mcp: {
        tool: 'export_site',
        description:
          "Export all of a site's data as six files, each with a download link valid one hour (no credentials needed): settings.json (the site and its settings), site-store.ndjson (settings, daily totals, stored results per day), rollups.ndjson (every daily rollup row), archive.json (raw records: one gzipped NDJSON file per kind — pageviews, events with A/B exposures, requests — and UTC hour, each with its own link), manifest.json (what is where, with counts) and imported.ndjson (figures of history imports, each row with its import's id). `from`/`to` (YYYY-MM-DD, UTC days) limit the raw records listed; at most 20,000 files are listed (archive.complete false: export the rest with a later from). 5 exports an hour per site, 20 per workspace; a repeat with the same idempotencyKey within 24 hours answers the first export without spending them.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/export',
        summary: 'Export the site: six files with download links valid one hour',
        description:
          'Files are written when their link is fetched (GET /v1/downloads/{token}: 410 after one hour, 404 for a link no export made). 429 with Retry-After past 5 exports an hour per site or 20 per workspace; a repeat with the same Idempotency-Key within 24 hours answers the first export and spends nothing.',
        tags: ['Export'],
      },
    })
    .input(ExportInput)
    .output(ExportOutput)
    .mutation(({ ctx, input }) => exportSite(ctx.deps, ctx.em, ctx.actor, input)),
});
