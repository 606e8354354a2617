import { useMemo } from 'react';
import { setSearch, useSearch } from '../../../router.tsx';
import { type Choices, choicesToParams, parseChoices } from './choices.ts';

/**
 * The page's choices from the query string, and a setter that writes them back (a history entry each).
 * `today`: the site's today (its time zone), where yesterday and stepping count from.
 */
export function useChoices(today?: string): [Choices, (change: Partial<Choices>) => void] {
  const search = useSearch();
  const choices = useMemo(() => ({ ...parseChoices(search), ...(today ? { today } : {}) }), [search, today]);
  const change = (patch: Partial<Choices>) => {
    const next = { ...choices, ...patch };
    if (patch.compare === false) {
      next.compareFrom = null;
      next.compareTo = null;
    }
    // Each lane has its own dimensions (crawlers: bots, paths…): filters do not carry over.
    if (patch.lane && patch.lane !== choices.lane && !patch.filters) next.filters = {};
    if (next.range !== 'custom') {
      next.from = null;
      next.to = null;
    }
    setSearch(choicesToParams(next, new URLSearchParams(window.location.search)));
  };
  return [choices, change];
}
