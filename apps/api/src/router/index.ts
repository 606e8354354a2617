import { router } from '../trpc/init.ts';
import { authRouter } from './auth.ts';
import { getMe } from './me.ts';

/** The whole API. REST routes, the OpenAPI document and the MCP tools are all generated from it. */
export const appRouter = router({
  auth: authRouter,
  me: router({ get: getMe }),
});

export type AppRouter = typeof appRouter;
