import { type AuthInfo, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { Logger } from '../../core/logger.ts';
import type { Ctx } from '../../procedures/context.ts';
import { callTool } from './call.ts';
import type { McpTool } from './tools.ts';

/** The revisions this endpoint speaks; the 2025 ones open with initialize, 2026-07-28 is stateless. */
export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
export const SUPPORTED_VERSIONS = [MODERN_VERSION, ...LEGACY_VERSIONS];

/** Who answers: stamped by the SDK into every 2026-07-28 result's `_meta`. */
export const SERVER_INFO = { name: 'unseen-stats', version: '1.0.0' };

/** What one HTTP request lends its tool calls: a request context per call, all from its bearer token. */
export interface CallScope {
  nextCtx(): Ctx;
}

const SCOPE_KEY = 'unseenCallScope';

/** The SDK hands `authInfo` through to the server factory untouched: the call scope rides on it. */
export function authInfoFor(tokenId: string, scopes: string[], scope: CallScope): AuthInfo {
  return { token: tokenId, clientId: tokenId, scopes, extra: { [SCOPE_KEY]: scope } };
}

export function scopeOf(authInfo: AuthInfo | undefined): CallScope {
  const scope = authInfo?.extra?.[SCOPE_KEY] as CallScope | undefined;
  if (!scope) throw new Error('MCP request reached the server without a call scope');
  return scope;
}

/** A fresh low-level server for one HTTP request: tools/list and tools/call over the generated tools. */
export function buildServer(tools: Map<string, McpTool>, scope: CallScope, logger: Logger): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    supportedProtocolVersions: SUPPORTED_VERSIONS,
    instructions: 'Unseen Stats: each tool is one operation of the /v1 REST API, with the same scopes and answers.',
  });
  const definitions = [...tools.values()].map((t) => t.definition);
  server.setRequestHandler('tools/list', () => ({ tools: definitions }));
  server.setRequestHandler('tools/call', (request) => {
    const { name, arguments: args } = request.params;
    const tool = tools.get(name);
    if (!tool)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool ${name}: call tools/list for the tool names`);
    return callTool(tool, scope.nextCtx(), args, logger);
  });
  return server;
}
