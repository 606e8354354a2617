import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Logger } from '../../core/logger.ts';
import { buildServer, scopeOf } from './server.ts';
import type { McpTool } from './tools.ts';

/**
 * Hands one already-checked request to the SDK. 2026-07-28 traffic goes to `createMcpHandler` (it
 * validates the envelope and the Mcp-* headers: -32020, -32022, server/discover, resultType).
 * 2025-era traffic goes to a stateless transport of our own, because the SDK's built-in legacy
 * fallback answers over SSE, and this endpoint answers one JSON body per request.
 */
export function createDispatcher(tools: Map<string, McpTool>, logger: Logger) {
  const onerror = (err: Error) => logger.debug(`MCP: ${err.message}`);
  // Our handlers emit no messages before their result, so 'auto' always answers a single JSON body.
  const modern = createMcpHandler((c) => buildServer(tools, scopeOf(c.authInfo), logger), {
    legacy: 'reject',
    responseMode: 'auto',
    onerror,
  });

  async function legacy(request: Request, parsedBody: unknown, authInfo: AuthInfo): Promise<Response> {
    const server = buildServer(tools, scopeOf(authInfo), logger);
    // No session id generator: no Mcp-Session-Id is ever issued, every request stands alone.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = onerror;
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody, authInfo });
    } finally {
      await server.close().catch(() => {});
    }
  }

  return async (request: Request, parsedBody: unknown, authInfo: AuthInfo): Promise<Response> => {
    if (await isLegacyRequest(request, parsedBody)) return legacy(request, parsedBody, authInfo);
    return modern.fetch(request, { parsedBody, authInfo });
  };
}
