import { MeOutput, zEmpty } from '@us/shared';
import { describeCaller } from '../services/me.ts';
import { procedure, requireActor } from '../trpc/init.ts';

export const getMe = procedure
  .meta({
    auth: 'any',
    mcp: { tool: 'get_me' },
    openapi: { method: 'GET', path: '/v1/me', summary: 'Who is calling: person or token, workspace, scopes', tags: ['Caller'] },
  })
  .input(zEmpty.optional())
  .output(MeOutput)
  .query(({ ctx }) => describeCaller(ctx.em, requireActor(ctx.auth)));
