/**
 * A pure function's answers kept for the keys seen lately: real traffic repeats a few thousand values (user
 * agents, Origin headers), and computing an answer costs more than the lookup. Keys longer than `longest`
 * are answered each time, never kept (a stranger's 8 KB header is not memory we hold); once `max` keys are
 * kept the map starts over, so a flood of distinct values costs at most `max` entries.
 */
export function keptAnswers<V>(answer: (key: string) => V, opts: { max: number; longest: number }): (key: string) => V {
  const kept = new Map<string, V>();
  return (key) => {
    const hit = kept.get(key);
    if (hit !== undefined || kept.has(key)) return hit as V;
    const value = answer(key);
    if (key.length <= opts.longest) {
      if (kept.size >= opts.max) kept.clear();
      kept.set(key, value);
    }
    return value;
  };
}
