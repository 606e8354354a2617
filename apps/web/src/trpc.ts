import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import type { AppRouter, RouterOutputs } from '@us/api';
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

export type Me = RouterOutputs['me']['get'];
export type SessionInfo = RouterOutputs['auth']['sessions']['sessions'][number];
export type Enrolment = RouterOutputs['auth']['twoFactorEnroll'];
