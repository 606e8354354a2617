import { setSearch } from '../../../router.tsx';

/** Page choices in the address: sets (or, for null, removes) query parameters, a history entry each. */
export function patchSearch(patch: Record<string, string | null>) {
  const params = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) params.delete(name);
    else params.set(name, value);
  }
  setSearch(params);
}

/** `days` from the address when it is one of `choices`, else the first choice. */
export function daysParam(search: string, choices: readonly number[]): number {
  const n = Number(new URLSearchParams(search).get('days'));
  return choices.includes(n) ? n : (choices[0] ?? 7);
}
