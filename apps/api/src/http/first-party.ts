import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { sendProblem } from '../rest/problem-response.ts';

/**
 * The first-party `/_us/` paths, served when the request's Host is one of a site's hostnames (the edge
 * SDK and proxy mode forward them here): internal-link marking now, the bot check's return later.
 */
export function firstPartyHandler(_deps: Deps) {
  return async (ctx: Context) => sendProblem(ctx, new AppError(404, 'No such first-party path'));
}
