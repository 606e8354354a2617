import { router } from '../trpc/init.ts';

export const workspaceRouter = router({});
