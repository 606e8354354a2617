import { MeOutput, zEmpty } from '@us/shared';
import { actorProcedure } from '../../procedures/procedures.ts';
import { describeCaller } from './me.ts';

export const getMe = actorProcedure
  .meta({
    auth: 'any',
    mcp: {
      tool: 'get_me',
      description:
        'Who this token is: its workspace, scopes and site restriction. Call it first to learn what the other tools may do; it takes no arguments.',
    },
    openapi: { method: 'GET', path: '/v1/me', summary: 'Who is calling: person or token, workspace, scopes', tags: ['Caller'] },
  })
  .input(zEmpty.optional())
  .output(MeOutput)
  .query(({ ctx }) => describeCaller(ctx.em, ctx.actor));
