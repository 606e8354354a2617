import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { sendProblem } from '../rest/problem-response.ts';
import type { Operation } from '../trpc/registry.ts';

/** Placeholder until the MCP face lands. */
export function mcpHandler(_deps: Deps, _ops: Operation[]) {
  return async (ctx: Context) => sendProblem(ctx, new AppError(404, 'MCP is not available yet'));
}
