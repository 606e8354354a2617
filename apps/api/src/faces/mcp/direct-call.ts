import type { IncomingHttpHeaders } from 'node:http';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import { MODERN_VERSION, SERVER_INFO } from './server.ts';
import type { McpTool } from './tools.ts';

/**
 * The common MCP request answered without building the SDK's per-request server, web Request and
 * Response (about three quarters of the face's time under load): one 2026-07-28 `tools/call` of a known
 * tool, its arguments a plain object, every standard header present and equal to the body, and nothing
 * else in the message. The SDK's own classifier still judges the envelope. Anything else, including every
 * refusal, goes through the SDK; the answer is the one the SDK gives (`mcp-direct.http.test.ts`
 * sends the same requests both ways and compares).
 */
export interface DirectCall {
  id: string | number;
  tool: McpTool;
  args: Record<string, unknown> | undefined;
}

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY]);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const onlyKeys = (o: Record<string, unknown>, allowed: Set<string>) => Object.keys(o).every((k) => allowed.has(k));
/**
 * A header as the SDK reads it: one value, surrounding spaces and tabs stripped (by index: a pattern anchored at
 * the end tried each run of tabs inside the value again, quadratic over a 16 KB header).
 */
const header = (h: IncomingHttpHeaders, name: string) => {
  const v = h[name];
  if (typeof v !== 'string') return undefined;
  const blank = (i: number) => v[i] === ' ' || v[i] === '\t';
  let start = 0;
  let end = v.length;
  while (start < end && blank(start)) start++;
  while (end > start && blank(end - 1)) end--;
  return v.slice(start, end);
};

/** The call when this request may be answered directly, else undefined (the SDK answers it). */
export function directCallOf(headers: IncomingHttpHeaders, body: unknown, tools: Map<string, McpTool>): DirectCall | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call') return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, PARAM_KEYS)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  if (!isPlainObject(meta) || !onlyKeys(meta, ENVELOPE_KEYS) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_VERSION)
    return undefined;
  const tool = tools.get(name);
  const version = header(headers, 'mcp-protocol-version');
  if (!tool || version !== MODERN_VERSION || header(headers, 'mcp-method') !== method || header(headers, 'mcp-name') !== name) {
    return undefined;
  }
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: method,
    mcpNameHeader: name,
    body,
  });
  if (route.kind !== 'modern' || route.classification.revision !== MODERN_VERSION) return undefined;
  return { id: id as string | number, tool, args };
}

/** The JSON-RPC answer the SDK sends for a tool result on 2026-07-28: resultType and the server's identity stamped. */
export function directAnswer(id: string | number, result: CallToolResult): string {
  const meta = { ...result._meta, [SERVER_INFO_META_KEY]: SERVER_INFO };
  return JSON.stringify({ jsonrpc: '2.0', id, result: { ...result, resultType: 'complete', _meta: meta } });
}
