import { useCallback, useEffect, useRef, useState } from 'react';
import { type Problem, toProblem } from '../problem.ts';

export interface Query<T> {
  data: T | undefined;
  problem: Problem | null;
  loading: boolean;
  reload: () => void;
}

/** Loads data once on mount and again on `reload()`; keeps the last good data while reloading. */
export function useQuery<T>(load: () => Promise<T>): Query<T> {
  const loader = useRef(load);
  loader.current = load;
  const [version, setVersion] = useState(0);
  const [data, setData] = useState<T>();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    let live = true;
    setLoading(true);
    loader
      .current()
      .then((d) => {
        if (!live) return;
        setData(d);
        setProblem(null);
      })
      .catch((err: unknown) => live && setProblem(toProblem(err)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, problem, loading, reload };
}
