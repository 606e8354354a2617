import { router } from '../trpc/init.ts';

export const hostnamesRouter = router({});
