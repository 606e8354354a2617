import type { OpenAPIObject } from 'trpc-to-openapi';
import { PROBLEM_CODES } from '../../core/problem-types.ts';
import { scopesOf } from '../../procedures/meta.ts';
import type { Operation } from '../../procedures/registry.ts';
import { appRouter } from '../../router.ts';

const problemSchema: NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string] = {
  type: 'object' as const,
  required: ['type', 'code', 'title', 'status'],
  properties: {
    type: {
      type: 'string' as const,
      description:
        "The problem type: /problems/{code}, relative to this answer's URL; GET it for what the code means and what to do",
    },
    code: { type: 'string' as const, enum: PROBLEM_CODES, description: 'The kind of problem, for clients to act on' },
    title: { type: 'string' as const, description: 'What went wrong, written to be acted on' },
    status: { type: 'integer' as const },
    field: { type: 'string' as const, description: 'For 400: the offending field, e.g. password or scopes[2]' },
    retryAfter: { type: 'integer' as const },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Refused input; `field` names it',
  401: 'No credentials, or unknown, revoked or expired ones',
  403: 'Not allowed for this caller (missing scope, person-only route)',
  404: 'No such resource in this workspace',
  409: 'Conflicts with the current state',
  422: 'Idempotency-Key already used for a different request',
  413: 'Body over 256 KB',
  429: 'Rate limited: wait Retry-After seconds',
  402: 'Plan limit reached: upgrade, or free an allowance',
  503: 'A service this depends on is unavailable: try again later',
};

function errorStatuses(op: Operation): number[] {
  const s = [400, 429];
  if (op.meta.auth !== 'none') s.push(401, 403, 404);
  s.push(...(op.meta.answers ?? []));
  if (op.meta.openapi && op.meta.openapi.method !== 'GET') s.push(413);
  if (op.meta.idempotent) s.push(409, 422);
  // Creations and changes may meet a plan limit (402) or a service they depend on being down (503).
  if (op.type === 'mutation' && op.meta.auth !== 'none') s.push(402, 503);
  return [...new Set(s)].sort((a, b) => a - b);
}

/**
 * The OpenAPI 3.1 document, generated from the router, then completed with what the generator does not
 * know: success statuses other than 200, problem+json errors, and the Idempotency-Key / X-Workspace headers.
 * The generator is loaded here, when the document is first asked for: it is most of a megabyte of code
 * and several of heap that a node serving no one reading it would hold for nothing.
 */
export async function buildOpenApi(ops: Operation[], baseUrl: string): Promise<OpenAPIObject> {
  const { generateOpenApiDocument } = await import('trpc-to-openapi');
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Unseen Stats API',
    description: 'Cookie-free web analytics and bot protection. Every operation is also an MCP tool at POST /mcp.',
    version: '1',
    openApiVersion: '3.1.0',
    baseUrl: `${baseUrl}`,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'API token' },
      session: { type: 'apiKey', in: 'cookie', name: 'us_session', description: 'Signed-in person (dashboard)' },
    },
  });
  doc.components ??= {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), Problem: problemSchema };
  for (const op of ops) {
    const oa = op.meta.openapi;
    if (!oa) continue;
    const item = doc.paths?.[oa.path.replace(/\{(\w+)\}/g, '{$1}')];
    const operation = item?.[oa.method.toLowerCase() as 'get'];
    if (!operation) continue;
    const responses: Record<string, unknown> = {};
    const ok = (operation.responses as Record<string, { content?: unknown; description?: string }>)['200'];
    const status = op.meta.status ?? 200;
    responses[String(status)] = status === 204 ? { description: 'Done; no body' } : ok;
    for (const code of errorStatuses(op)) {
      responses[String(code)] = {
        description: STATUS_TEXT[code] ?? 'Error',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    operation.responses = responses as typeof operation.responses;
    operation.security =
      op.meta.auth === 'none' ? [] : op.meta.auth === 'person' ? [{ session: [] }] : [{ bearer: [] }, { session: [] }];
    const headers = [];
    if (op.meta.idempotent) {
      headers.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        description: 'Repeat within 24 hours returns the first answer with Idempotent-Replayed: true',
      });
    }
    if (op.meta.auth === 'person' || op.meta.auth === 'any') {
      headers.push({
        name: 'X-Workspace',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: 'Workspace id for a signed-in person (or ?workspace=)',
      });
    }
    if (headers.length) operation.parameters = [...(operation.parameters ?? []), ...headers] as typeof operation.parameters;
    // One scope as a string (as every spec route has); several, all required, as an array.
    const scopes = scopesOf(op.meta);
    if (scopes.length) (operation as Record<string, unknown>)['x-scope'] = scopes.length === 1 ? scopes[0] : scopes;
    if (op.meta.mcp) (operation as Record<string, unknown>)['x-mcp-tool'] = op.meta.mcp.tool;
  }
  doc.paths = {
    ...doc.paths,
    '/v1/downloads/{token}': downloadsPath as never,
    '/v1/billing/webhook': webhookPath as never,
    '/v1/sites/{id}/imports/{importId}/files/{fileName}': uploadPath as never,
  };
  return doc;
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** GET /v1/downloads/{token} is served outside the router (a file stream; faces/downloads.ts). */
const downloadsPath = {
  get: {
    operationId: 'downloads-get',
    summary: 'Download a file of an export (the link is the credential)',
    description:
      'The link comes from POST /v1/sites/{id}/export (or from archive.json / manifest.json read through such a link) and works for one hour. JSON files are application/json, line files application/x-ndjson, raw-record files application/gzip (gzipped NDJSON).',
    tags: ['Export'],
    security: [],
    parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      '200': {
        description: 'The file',
        content: {
          'application/json': { schema: {} },
          'application/x-ndjson': { schema: { type: 'string' } },
          'application/gzip': { schema: { type: 'string', format: 'binary' } },
        },
      },
      '404': problem('Not a link an export made, or the export is more than a day old'),
      '410': problem('The link is more than an hour old: make a new export'),
    },
  },
};

/** POST /v1/billing/webhook is served outside the router (the raw body is signed; features/billing/billing-webhook.ts). */
const webhookPath = {
  post: {
    operationId: 'billing-webhook',
    summary: 'Payment provider events (Stripe webhooks; the signature is the credential)',
    description:
      'Point the Stripe webhook endpoint here with the events checkout.session.completed and customer.subscription.created, .updated, .deleted. Each event is applied once (redeliveries answer outcome duplicate) as the state Stripe holds for its subscription when it arrives (read from Stripe), so events arriving out of order never put back an older state (stale: a newer read was applied already); a second live subscription of a workspace is cancelled at Stripe with its unused time credited (second-cancelled); other events are ignored.',
    tags: ['Billing'],
    security: [],
    parameters: [{ name: 'Stripe-Signature', in: 'header', required: true, schema: { type: 'string' } }],
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    responses: {
      '200': {
        description: 'Received',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                received: { type: 'boolean' },
                outcome: { type: 'string', enum: ['applied', 'duplicate', 'stale', 'ignored', 'second-cancelled'] },
              },
            },
          },
        },
      },
      '400': problem('No Stripe-Signature, or it does not match the body and the signing secret'),
      '413': problem('Body over 512 KB'),
      '429': problem('More than 600 requests a minute from one address whose signature failed (signed events are never refused)'),
      '503': problem('Billing is not configured here, or the database or provider is unreachable (the provider redelivers)'),
    },
  },
};

/** PUT .../imports/{importId}/files/{fileName} is served outside the router (a CSV stream; faces/uploads.ts). */
const uploadPath = {
  put: {
    operationId: 'imports-upload',
    summary: 'Upload one file of a history import (the raw CSV as the body)',
    description:
      "Stored as it arrives; sending a file of the same name again replaces it (a broken upload resumes so). At most 200 MB a file and 20 files an import; the name ends in .csv; the header must be one of the import source's files (docs/product/imports.md).",
    tags: ['Imports'],
    'x-scope': 'sites:write',
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'importId', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'fileName', in: 'path', required: true, schema: { type: 'string' } },
    ],
    requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' } } } },
    responses: {
      '200': {
        description: 'Stored',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { name: { type: 'string' }, bytes: { type: 'number' } },
              required: ['name', 'bytes'],
            },
          },
        },
      },
      '400': problem(
        "A name not ending in .csv, a 21st file, or a file whose name or header is not one of the source's (naming what is expected)",
      ),
      '401': problem('No credentials, or unknown ones'),
      '403': problem('The token or role lacks sites:write'),
      '404': problem('No such site or import'),
      '409': problem('The import has started: its files can no longer change'),
      '413': problem('The file is larger than 200 MB'),
    },
  },
};
