import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isSignedOut, toProblem } from '../problem.ts';
import { endSession } from '../session.ts';
import { onWorkspaceChange } from '../workspace.ts';
import { QUERY_RETRY } from './retry.ts';

/** What a query or mutation tells the data layer about itself, as its `meta`. */
export type CallMeta = {
  /**
   * A 401 is this call's own answer (who is signed in: nobody; a wrong password on a sign-in form),
   * shown or acted on by its component, not a sign that the session has ended.
   */
  keep401?: boolean;
};

/** Options of a call whose 401 is its own answer (see `keep401`): the sign-in pages' forms, who is signed in. */
export const KEEP_401: { meta: CallMeta } = { meta: { keep401: true } };

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: CallMeta;
    mutationMeta: CallMeta;
  }
}

/**
 * The one place a 401 is acted on: the session is gone, so what was loaded for it is forgotten and
 * the person goes to sign in, told why. A page that could not load is replaced in the history.
 */
function onError(err: unknown, meta: CallMeta | undefined, replace: boolean) {
  const p = toProblem(err);
  if (isSignedOut(p) && !meta?.keep401) endSession(queryClient, p.title, { replace });
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (err, query) => onError(err, query.meta, true) }),
  mutationCache: new MutationCache({ onError: (err, _vars, _result, mutation) => onError(err, mutation.meta, false) }),
  defaultOptions: {
    // Fetched on every visit of a page and after changes; a failure is shown at once (a busy 429 waits: retry.ts).
    queries: { ...QUERY_RETRY, refetchOnWindowFocus: false },
  },
});

// Every answer depends on the workspace the calls are made in (X-Workspace): a new choice forgets them.
onWorkspaceChange(() => queryClient.clear());
