import type { CallToolResult } from '@modelcontextprotocol/server';
import { logFailure, toAppError } from '../../core/error-map.ts';
import { AppError, toProblem } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { noteOperation } from '../../core/observe/request-scope.ts';
import type { Ctx } from '../../procedures/context.ts';
import { refuseDeepInput } from '../../procedures/input-guard.ts';
import { invoke } from '../invoke.ts';
import { IDEMPOTENCY_ARG, type McpTool } from './tools.ts';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The route's answer as a tool result: JSON text always, structuredContent when the answer is an object. */
export function answerResult(data: unknown, replayed = false): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(data ?? null) }] };
  if (isPlainObject(data)) result.structuredContent = data;
  if (replayed) result._meta = { idempotentReplayed: true };
  return result;
}

/** A refusal as a tool result the model can act on: the text starts with the problem's title (what to do). */
export function refusalResult(err: AppError): CallToolResult {
  const problem = toProblem(err);
  return {
    isError: true,
    content: [{ type: 'text', text: `${err.title} (${err.status})` }],
    structuredContent: { ...problem },
  };
}

/** Runs one tool through the same in-process path as REST (middleware, scopes, idempotency). */
export async function callTool(tool: McpTool, ctx: Ctx, args: unknown, logger: Logger): Promise<CallToolResult> {
  noteOperation(tool.op.path);
  try {
    if (args !== undefined && !isPlainObject(args)) {
      throw new AppError(400, 'Send the tool arguments as a JSON object', { field: '(arguments)' });
    }
    refuseDeepInput(args, '(arguments)');
    let input: Record<string, unknown> = { ...args };
    let key: string | undefined;
    if (tool.op.meta.idempotent && IDEMPOTENCY_ARG in input) {
      const { [IDEMPOTENCY_ARG]: raw, ...rest } = input;
      if (typeof raw !== 'string') {
        throw new AppError(400, `Send ${IDEMPOTENCY_ARG} as a string of 1 to 255 characters`, { field: IDEMPOTENCY_ARG });
      }
      key = raw;
      input = rest;
    }
    // An operation without an input schema takes no input; an empty object stays valid for `{}` schemas.
    const { data, replayed } = await invoke(tool.op, ctx, tool.op.input ? input : undefined, key, IDEMPOTENCY_ARG);
    return answerResult(data, replayed);
  } catch (err) {
    const app = toAppError(err);
    logFailure(logger, `MCP tool ${tool.name}`, app);
    return refusalResult(app);
  }
}
