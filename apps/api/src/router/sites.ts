import { router } from '../trpc/init.ts';

export const sitesRouter = router({});
