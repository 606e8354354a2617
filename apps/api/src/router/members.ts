import { router } from '../trpc/init.ts';

export const membersRouter = router({});
