import { router } from '../trpc/init.ts';

export const siteKeysRouter = router({});
