import type { IncomingMessage } from 'node:http';
import { isJsonContentType, PROTOCOL_VERSION_META_KEY, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { BODY_LIMITS, readBody as readLimitedBody, utf8Body } from '../../core/http/body.ts';
import { MAX_INPUT_DEPTH, nestedDeeperThan } from '../../procedures/input-guard.ts';

/** JSON-RPC batches are a 2025-03-26 feature only (later revisions removed them), and small here. */
export const BATCH_VERSION = '2025-03-26';
export const MAX_BATCH = 20;
/**
 * Nesting of a whole message: the envelope (batch, params, arguments) plus what tool arguments may hold.
 * Deeper messages are refused before the SDK walks them (it re-serialises the body recursively).
 */
export const MAX_MESSAGE_DEPTH = MAX_INPUT_DEPTH + 16;

/** A JSON-RPC error answer, the shape MCP clients expect for protocol-level refusals. */
export function jsonRpcError(status: number, code: number, message: string, id: unknown = null): Response {
  return Response.json({ jsonrpc: '2.0', id, error: { code, message } }, { status });
}

export type ParsedBody = { ok: true; body: unknown } | { ok: false; response: Response };

/**
 * Reads and parses the POST body; a refusal (not JSON, nested too deep) is a JSON-RPC error answer (the
 * SDK's own codes). A body over the face's limit throws the 413 AppError, answered as problem+json like every face's.
 */
export async function readBody(req: IncomingMessage): Promise<ParsedBody> {
  if (!isJsonContentType(req.headers['content-type'] ?? null)) {
    return { ok: false, response: jsonRpcError(415, -32000, 'Unsupported Media Type: send Content-Type: application/json') };
  }
  const raw = await readLimitedBody(req, BODY_LIMITS.mcp);
  const text = utf8Body(raw, req.headers['content-type']);
  if (text === null) {
    return { ok: false, response: jsonRpcError(400, ProtocolErrorCode.ParseError, 'Parse error: send the body as UTF-8') };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, response: jsonRpcError(400, ProtocolErrorCode.ParseError, 'Parse error: the body is not valid JSON') };
  }
  if (nestedDeeperThan(body, MAX_MESSAGE_DEPTH)) {
    const message = `Invalid Request: the message is nested more than ${MAX_MESSAGE_DEPTH} levels deep; no tool argument needs more than ${MAX_INPUT_DEPTH}`;
    return { ok: false, response: jsonRpcError(400, ProtocolErrorCode.InvalidRequest, message) };
  }
  return { ok: true, body };
}

/** True when a message carries the 2026-07-28 per-request envelope (`_meta` protocol version). */
function claimsModernEnvelope(message: unknown): boolean {
  const params = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params;
  return params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined;
}

const isInitialize = (message: unknown) => (message as { method?: unknown } | null)?.method === 'initialize';

/**
 * Why a JSON-RPC batch is refused, or undefined when it may be served. A batch is only 2025-03-26
 * traffic: no MCP-Protocol-Version header (2025-03-26 clients send none) or that version named,
 * no 2026 envelope, no initialize inside (2025-03-26 forbids it), 1 to 20 messages.
 */
export function batchRefusal(messages: unknown[], versionHeader: string | undefined): string | undefined {
  if (messages.length === 0) return 'Invalid Request: the batch is empty; send at least one message';
  if (messages.length > MAX_BATCH) {
    return `Invalid Request: a batch holds at most ${MAX_BATCH} messages; split it into several requests`;
  }
  const version = versionHeader?.trim();
  if ((version !== undefined && version !== BATCH_VERSION) || messages.some(claimsModernEnvelope)) {
    return `Invalid Request: batches are accepted only with protocol version ${BATCH_VERSION}; send one message per request`;
  }
  if (messages.some(isInitialize)) return 'Invalid Request: initialize cannot be part of a batch; send it on its own';
  const repeated = repeatedId(messages);
  if (repeated !== undefined) {
    return `Invalid Request: id ${JSON.stringify(repeated)} names more than one request of the batch; give each request its own id`;
  }
  return undefined;
}

/** The first request id a batch uses twice (answers are filed by id: all but one would run unanswered). */
function repeatedId(messages: unknown[]): unknown {
  const seen = new Set<unknown>();
  for (const message of messages) {
    const id = (message as { id?: unknown } | null)?.id;
    if (id === undefined || id === null) continue;
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}
