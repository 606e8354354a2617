import { useEffect, useRef, useState } from 'react';
import { type Problem, toProblem } from '../../../problem.ts';
import { ProblemError } from './data.ts';

export interface Loaded<T> {
  data: T | undefined;
  problem: Problem | null;
  loading: boolean;
}

/**
 * Loads again whenever `key` changes, keeping the last good data on screen meanwhile (so switching a
 * range does not blank the page); an answer to an older key is dropped, a failure clears the data.
 */
export function useLoad<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const loader = useRef(load);
  loader.current = load;
  const [state, setState] = useState<Loaded<T>>({ data: undefined, problem: null, loading: true });
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    loader
      .current()
      .then((data) => live && setState({ data, problem: null, loading: false }))
      .catch((err: unknown) => live && setState({ data: undefined, problem: problemOf(err), loading: false }));
    return () => {
      live = false;
    };
  }, [key]);
  return state;
}

const problemOf = (err: unknown): Problem => (err instanceof ProblemError ? err.problem : toProblem(err));
