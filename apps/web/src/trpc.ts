import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@us/api';
import { currentWorkspaceId } from './workspace.ts';

const headers = () => {
  const ws = currentWorkspaceId();
  return ws ? { 'X-Workspace': ws } : {};
};

/**
 * The typed client of the API's tRPC face; the session cookie rides along (same origin). The server
 * refuses auth procedures inside a batch and batches of more than 10 calls, so auth calls go alone.
 */
export const api = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.path.startsWith('auth.'),
      true: httpLink({ url: '/trpc', headers }),
      false: httpBatchLink({ url: '/trpc', headers, maxItems: 10 }),
    }),
  ],
});

type Outputs = inferRouterOutputs<AppRouter>;
export type Me = Outputs['me']['get'];
export type SessionInfo = Outputs['auth']['sessions']['sessions'][number];
export type Enrolment = Outputs['auth']['twoFactorEnroll'];
