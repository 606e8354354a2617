import { router } from '../trpc/init.ts';

export const internalLinkRouter = router({});
