import { toProblem } from '../problem.ts';

/**
 * Queries are not retried, except a 429: the workspace's stats questions are all running (the dashboard asks
 * more at once than a workspace may run when its cards load together), so the card waits its turn, backing off,
 * instead of showing the refusal. Any other failure is shown at once.
 */
export const QUERY_RETRY = {
  retry: (failures: number, err: unknown) => failures < 5 && toProblem(err).status === 429,
  retryDelay: (attempt: number) => Math.min(4000, 500 * 2 ** attempt),
};
