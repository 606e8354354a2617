import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { createTRPCContext, type TRPCOptionsProxy } from '@trpc/tanstack-react-query';
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
export const trpcClient = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.path.startsWith('auth.'),
      true: httpLink({ url: '/trpc', headers }),
      false: httpBatchLink({ url: '/trpc', headers, maxItems: 10 }),
    }),
  ],
});

/**
 * Components reach the API through React Query: `useTRPC()` gives each procedure's `queryOptions`,
 * `mutationOptions` and `queryFilter`; `useTRPCClient()` the client, for the rare direct call.
 */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
export type TRPC = TRPCOptionsProxy<AppRouter>;
export type TRPCClient = typeof trpcClient;

export type Me = RouterOutputs['me']['get'];
export type Enrolment = RouterOutputs['auth']['twoFactorEnroll'];
