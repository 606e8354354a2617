import { useState } from 'react';
import { toProblem } from '../problem.ts';
import { sendToSignInOn401 } from '../session.ts';

export interface Action {
  /** Which item is being worked on (a row key), or null. */
  busy: string | null;
  error: string | null;
  clearError: () => void;
  run: (key: string, work: () => Promise<void>) => Promise<void>;
}

/** One-click work on a list item (verify, delete, rotate, remove, revoke): a 401 goes to sign-in, other problems are kept to show. */
export function useAction(): Action {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (key: string, work: () => Promise<void>) => {
    setBusy(key);
    setError(null);
    try {
      await work();
    } catch (err) {
      const p = toProblem(err);
      if (!sendToSignInOn401(p)) setError(p.title);
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, clearError: () => setError(null), run };
}
