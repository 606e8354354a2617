import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../api/src/router/index.ts';

/** The typed client of the API's tRPC face; the session cookie rides along (same origin). */
export const api = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: '/trpc' })],
});

type Outputs = inferRouterOutputs<AppRouter>;
export type Me = Outputs['me']['get'];
export type SessionInfo = Outputs['auth']['sessions']['sessions'][number];
export type Enrolment = Outputs['auth']['twoFactorEnroll'];
