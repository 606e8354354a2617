import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../api/src/router/index.ts';
import { currentWorkspaceId } from './workspace.ts';

/** The typed client of the API's tRPC face; the session cookie rides along (same origin). */
export const api = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: '/trpc',
      headers: () => {
        const ws = currentWorkspaceId();
        return ws ? { 'X-Workspace': ws } : {};
      },
    }),
  ],
});

type Outputs = inferRouterOutputs<AppRouter>;
export type Me = Outputs['me']['get'];
export type SessionInfo = Outputs['auth']['sessions']['sessions'][number];
export type Enrolment = Outputs['auth']['twoFactorEnroll'];
