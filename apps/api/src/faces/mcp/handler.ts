import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { toWebRequest } from '@modelcontextprotocol/node';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Context } from 'koa';
import type { Deps } from '../../core/deps.ts';
import { toAppError } from '../../core/error-map.ts';
import { unauthorized } from '../../core/errors.ts';
import { sendProblem } from '../../core/http/problem-response.ts';
import { label } from '../../core/observe/request-scope.ts';
import type { Ctx } from '../../procedures/context.ts';
import type { Operation } from '../../procedures/registry.ts';
import { createCtx, requestInfo } from '../request-context.ts';
import { MCP_CALLS_PER_MINUTE, tokenRateRefusal } from '../token-rate.ts';
import { callTool } from './call.ts';
import { directAnswer, directCallOf } from './direct-call.ts';
import { createDispatcher } from './dispatch.ts';
import { batchRefusal, jsonRpcError, readBody } from './jsonrpc.ts';
import { authInfoFor, type CallScope } from './server.ts';
import { buildTools } from './tools.ts';

/**
 * Writes a web-standard Response through Node, bypassing Koa (it would turn a bodiless 202 into 204).
 * Streamed, because the SDK answers `subscriptions/listen` with a long-lived SSE stream.
 */
async function writeResponse(ctx: Context, response: Response) {
  ctx.respond = false;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  ctx.res.writeHead(response.status, headers);
  try {
    if (response.body) {
      for await (const chunk of Readable.fromWeb(response.body as NodeReadableStream)) ctx.res.write(chunk);
    }
  } catch {
    // The client went away mid-stream: nothing left to tell it.
  }
  ctx.res.end();
}

/**
 * A served batch's answer as JSON-RPC 2.0 has it, an array, also when it holds one answer (a batch of one request,
 * or of one request and notifications), which the SDK sends bare.
 */
async function asBatchAnswer(response: Response): Promise<Response> {
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(text.trimStart().startsWith('{') ? `[${text}]` : text, { status: 200, headers });
}

/**
 * The MCP face, `POST /mcp`. In front of the SDK: the bearer token (401 problem+json), the body, the
 * batch rules and the rate limit (429 problem+json); then the SDK speaks the protocol, except for a plain
 * 2026-07-28 tool call, answered directly as the SDK would (`direct-call.ts`; `sdkOnly` turns that off
 * for the test that compares both).
 */
export function mcpHandler(deps: Deps, ops: Operation[], opts: { callsPerMinute?: number; sdkOnly?: boolean } = {}) {
  const tools = buildTools(ops);
  const limit = opts.callsPerMinute ?? MCP_CALLS_PER_MINUTE;
  const dispatch = createDispatcher(tools, deps.logger);

  return async (ctx: Context) => {
    label('mcp', '/mcp', 'mcp');
    // Cookies never count on this face: requestInfo for 'mcp' makes the credential resolver ignore them.
    const info = requestInfo(ctx.req, 'mcp', ctx.ip, ctx.secure);
    if (info.bearer === undefined) {
      return sendProblem(
        ctx,
        unauthorized('Send an API token as Authorization: Bearer <token>; sign-in cookies are not accepted here'),
      );
    }
    const first = createCtx(deps, info);
    let actor: Awaited<ReturnType<Ctx['resolveActor']>>;
    try {
      actor = await first.resolveActor();
    } catch (err) {
      return sendProblem(ctx, toAppError(err));
    }
    if (actor?.type !== 'token') return sendProblem(ctx, unauthorized());

    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      return writeResponse(
        ctx,
        jsonRpcError(405, -32000, 'Method not allowed: send JSON-RPC messages with POST (no GET stream, no sessions to delete)'),
      );
    }
    // Counted before the body is read, as on REST: a token past its minute costs no read or parse of up to 1 MB. A
    // count that fails (the hot store unreachable) lets the calls through, as on REST: the service keeps serving.
    const count = (calls: number) => tokenRateRefusal(deps.hot, 'mcp', actor.token.id, calls, limit).catch(() => undefined);
    const early = await count(1);
    if (early) return sendProblem(ctx, early);
    let parsed: Awaited<ReturnType<typeof readBody>>;
    try {
      parsed = await readBody(ctx.req);
    } catch (err) {
      return sendProblem(ctx, toAppError(err));
    }
    const body = parsed.ok ? parsed.body : undefined;
    const refusal = Array.isArray(body) ? batchRefusal(body, ctx.get('MCP-Protocol-Version') || undefined) : undefined;
    // A refused or unreadable request counts once; a served batch counts each of its messages (the first is counted).
    const calls = Array.isArray(body) && !refusal ? body.length : 1;
    const limited = calls > 1 ? await count(calls - 1) : undefined;
    if (limited) return sendProblem(ctx, limited);
    if (!parsed.ok) return writeResponse(ctx, parsed.response);
    if (refusal) return writeResponse(ctx, jsonRpcError(400, ProtocolErrorCode.InvalidRequest, refusal));

    const direct = opts.sdkOnly ? undefined : directCallOf(ctx.req.headers, body, tools);
    if (direct) {
      const result = await callTool(direct.tool, first, direct.args, deps.logger);
      ctx.respond = false;
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(directAnswer(direct.id, result));
      return;
    }

    // The first call reuses the context that resolved the token; later ones (batches) get their own
    // EntityManager, since calls in a batch run concurrently.
    let spare: Ctx | undefined = first;
    const scope: CallScope = {
      nextCtx() {
        const c = spare ?? createCtx(deps, info);
        spare = undefined;
        return c;
      },
    };
    // Aborts the exchange (and any stream the SDK holds open) when the client goes away before the answer
    // was written; after it, there is nothing to abort (and an abort costs an exception per request).
    const abort = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) abort.abort();
    });
    let response: Response;
    try {
      const request = await toWebRequest(ctx.req, body, { signal: abort.signal });
      response = await dispatch(request, body, authInfoFor(actor.token.id, actor.scopes, scope));
      if (Array.isArray(body)) response = await asBatchAnswer(response);
    } catch (err) {
      deps.logger.error('MCP request failed', err);
      response = jsonRpcError(500, ProtocolErrorCode.InternalError, 'Internal error: try again in a moment');
    }
    return writeResponse(ctx, response);
  };
}
