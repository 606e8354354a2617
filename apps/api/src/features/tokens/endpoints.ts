import type { TokenEndpointsOutput } from '@us/shared';
import type { Deps } from '../../core/deps.ts';

/**
 * Where a token is used, as the world reaches this service (BASE_URL): the dashboard fills them into the
 * connection snippets it shows with a new token. Paths as served by app.ts and faces/api-docs.ts.
 */
export function tokenEndpoints(deps: Pick<Deps, 'urls'>): TokenEndpointsOutput {
  const base = deps.urls.base;
  return { apiUrl: base, mcpUrl: `${base}/mcp`, openapiUrl: `${base}/v1/openapi.json`, docsUrl: `${base}/v1/docs` };
}
