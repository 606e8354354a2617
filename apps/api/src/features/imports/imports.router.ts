import { CreateImportInput, Import, ImportList, ImportListQuery, ImportParams } from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { createImport, deleteImport, getImport, listImports, startImport } from './imports.ts';

const tags = ['Imports'];
const UPLOAD =
  'Files are uploaded by REST or the dashboard only (PUT /v1/sites/{id}/imports/{importId}/files/{fileName} with the raw CSV as the body), not by this tool';

export const importsRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_imports',
        description:
          "The site's history imports, newest first (`limit`, `cursor` from nextCursor): source, status, progress, days covered, days skipped (the site's own data) and replaced (an earlier import's).",
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/imports', summary: 'The site’s history imports, newest first', tags },
    })
    .input(ImportListQuery)
    .output(ImportList)
    .query(({ ctx, input }) => listImports(ctx.em, ctx.actor, input)),

  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'get_import',
        description:
          'One history import (`importId` from list_imports): status, rows read and stored, bad rows with file, line and reason (the first 100), days covered, skipped and replaced.',
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/imports/{importId}', summary: 'An import and its progress', tags },
    })
    .input(ImportParams)
    .output(Import)
    .query(({ ctx, input }) => getImport(ctx.em, ctx.actor, input)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_import',
        description: `Make a history import on a site (\`source\`: plausible, umami or ga4), waiting for its files. ${UPLOAD}. Then start it with start_import.`,
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/imports',
        summary: 'Make a history import; then upload its files and start it',
        description:
          'Files: PUT /v1/sites/{id}/imports/{importId}/files/{fileName}, the raw CSV as the body (at most 200 MB a file, 20 files, 5,000,000 rows an import). Days on which the site has its own data are skipped; days an earlier import covered are replaced; both are listed in the import.',
        tags,
      },
    })
    .input(CreateImportInput)
    .output(Import)
    .mutation(({ ctx, input }) => createImport(ctx.em, ctx.actor, input)),

  start: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 202,
      mcp: {
        tool: 'start_import',
        description: `Start reading an import's uploaded files (\`importId\` from list_imports); follow it with get_import. ${UPLOAD}.`,
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/imports/{importId}/start',
        summary: 'Start reading the uploaded files (409 without files or once started)',
        tags,
      },
    })
    .input(ImportParams)
    .output(Import)
    .mutation(({ ctx, input }) => startImport(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_import',
        description: 'Remove a history import and every figure it imported (`importId` from list_imports); a running one stops.',
      },
      openapi: { method: 'DELETE', path: '/v1/sites/{id}/imports/{importId}', summary: 'Remove an import and its figures', tags },
    })
    .input(ImportParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteImport(ctx.em, ctx.actor, input)),
});
