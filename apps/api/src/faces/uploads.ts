// PUT /v1/sites/{id}/imports/{importId}/files/{fileName}: one file of a history import, its raw CSV as the
// body. Not an operation (an operation's body is JSON read whole): the body is stored as it streams
// (features/imports/upload.ts). Credentials and scope as the imports' other writes (`sites:write`), checked
// before a byte of the body is read; a declared Content-Length past the bound is refused unread, and a body
// growing past it is cut. Sending a file again replaces it: that is how a broken upload resumes.
import { IMPORT_LIMITS } from '@us/shared';
import type { Context } from 'koa';
import type { Deps } from '../core/deps.ts';
import { logFailure, toAppError } from '../core/error-map.ts';
import { AppError } from '../core/errors.ts';
import { sendProblem } from '../core/http/problem-response.ts';
import { acceptFile, fileTooLarge, receiveFile } from '../features/imports/index.ts';
import { authorize } from '../procedures/authorize.ts';
import type { Meta } from '../procedures/meta.ts';
import { createCtx, requestInfo } from './request-context.ts';
import { restTokenRefusal } from './token-rate.ts';

export const UPLOAD_PATH = /^\/v1\/sites\/([^/]+)\/imports\/([^/]+)\/files\/([^/]+)$/;
export const UPLOAD_ROUTE = '/v1/sites/{id}/imports/{importId}/files/{fileName}';

const UPLOAD_META: Meta = { auth: 'any', scope: 'sites:write' };

const decoded = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export function uploadsHandler(deps: Deps) {
  return async (ctx: Context) => {
    try {
      await receive(deps, ctx);
    } catch (err) {
      const app = toAppError(err);
      logFailure(deps.logger, `${ctx.method} ${UPLOAD_ROUTE}`, app);
      // A body left unread is not read on: the connection ends with the answer.
      if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
      sendProblem(ctx, app);
    }
  };
}

async function receive(deps: Deps, ctx: Context) {
  const m = UPLOAD_PATH.exec(ctx.path);
  if (!m) throw new AppError(404, 'Upload a file with PUT /v1/sites/{id}/imports/{importId}/files/{fileName}');
  if (ctx.method !== 'PUT') {
    ctx.set('Allow', 'PUT');
    throw new AppError(404, 'Files of an import are uploaded with PUT, the raw CSV as the body');
  }
  const [, siteId, importId, rawName] = m as unknown as [string, string, string, string];
  const info = requestInfo(ctx.req, 'rest', ctx.ip, ctx.secure, ctx.query.workspace as string | undefined);
  const reqCtx = createCtx(deps, info);
  // A call of the token's REST budget, counted before a byte is read: a PUT of 200 MB in a loop was unmetered.
  if (info.bearer !== undefined) {
    const refusal = await restTokenRefusal(deps, reqCtx, 1);
    if (refusal) throw refusal;
  }
  const actor = await authorize(reqCtx, UPLOAD_META);
  if (!actor) throw new AppError(401, 'Sign in, or send a valid API token as Authorization: Bearer <token>');
  const name = decoded(rawName);
  const imp = await acceptFile(reqCtx.em, actor, decoded(siteId), decoded(importId), name);
  const declared = Number(ctx.get('content-length') || Number.NaN);
  if (declared > IMPORT_LIMITS.fileBytes) throw fileTooLarge();
  const bytes = await receiveFile(deps.orm, imp, name, ctx.req);
  ctx.status = 200;
  ctx.body = { name, bytes };
}
