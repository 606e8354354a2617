import { router } from '../trpc/init.ts';

export const tokensRouter = router({});
