import { toProblem } from '../problem.ts';

/** How long a card keeps asking for results being prepared (503): the server computes their days in turns. */
const PREPARING_TRIES = 24;
const PREPARING_WAIT_MS = 5000;

/**
 * Queries are not retried, except:
 * - a 429: the workspace's stats questions are all running (the dashboard asks more at once than a workspace may
 *   run when its cards load together), so the card waits its turn, backing off, instead of showing the refusal;
 * - a 503: results being prepared (a large site's days computed a batch per ask, "ask again in a few seconds"),
 *   or the database briefly away: asked again every 5 seconds for two minutes. The card showed the message and
 *   never asked again.
 * Any other failure is shown at once.
 */
export const QUERY_RETRY = {
  retry: (failures: number, err: unknown) => {
    const status = toProblem(err).status;
    if (status === 429) return failures < 5;
    return status === 503 && failures < PREPARING_TRIES;
  },
  retryDelay: (attempt: number, err: unknown) =>
    toProblem(err).status === 503 ? PREPARING_WAIT_MS : Math.min(4000, 500 * 2 ** attempt),
};
