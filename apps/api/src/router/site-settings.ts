import { router } from '../trpc/init.ts';

export const siteSettingsRouter = router({});
