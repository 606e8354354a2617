/** What the full table shows besides the dashboard's choices: search text, sort count, page. In the address. */
export interface TableChoices {
  /** Values containing this text (any case); '' for all. */
  q: string;
  /** A count of the metric set to rank by; null: the set's default. */
  sort: string | null;
  /** 1-based. */
  page: number;
}

export const PAGE_ROWS = 25;

export function parseTableChoices(search: string): TableChoices {
  const p = new URLSearchParams(search);
  const page = Number(p.get('page'));
  const sort = p.get('sort');
  return {
    q: (p.get('q') ?? '').slice(0, 200),
    sort: sort && /^[a-z_]{1,40}$/.test(sort) ? sort : null,
    page: Number.isInteger(page) && page >= 1 && page <= 4000 ? page : 1,
  };
}

/** The address's query with these table choices (defaults left out), keeping the dashboard's own. */
export function tableChoicesToParams(t: TableChoices, base: URLSearchParams): URLSearchParams {
  const q = new URLSearchParams(base);
  for (const k of ['q', 'sort', 'page']) q.delete(k);
  if (t.q) q.set('q', t.q);
  if (t.sort) q.set('sort', t.sort);
  if (t.page > 1) q.set('page', String(t.page));
  return q;
}
