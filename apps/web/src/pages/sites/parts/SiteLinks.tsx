import { Fragment } from 'react';
import { Link, useSearch } from '../../../router.tsx';

export type SitePageKey =
  | 'settings'
  | 'dashboard'
  | 'protection'
  | 'goals'
  | 'funnels'
  | 'journeys'
  | 'search'
  | 'export'
  | 'imports';

const PAGES: { key: SitePageKey; label: string; path: string }[] = [
  { key: 'settings', label: 'Site settings and snippet', path: '' },
  { key: 'dashboard', label: 'Dashboard', path: '/dashboard' },
  { key: 'protection', label: 'Protection', path: '/protection' },
  { key: 'goals', label: 'Goals', path: '/goals' },
  { key: 'funnels', label: 'Funnels', path: '/funnels' },
  { key: 'journeys', label: 'Journeys', path: '/journeys' },
  { key: 'search', label: 'Search', path: '/search' },
  { key: 'export', label: 'Export', path: '/export' },
  { key: 'imports', label: 'Imports', path: '/imports' },
];

/** The pages that read the dashboard's filters: their links keep the filters in force. */
const FILTERED: readonly SitePageKey[] = ['dashboard', 'funnels'];

/** The `where.<dimension>` parameters of a query string, as a query string (empty when none). */
function filterQuery(search: string): string {
  const kept = [...new URLSearchParams(search)].filter(([k]) => k.startsWith('where.'));
  return kept.length ? `?${new URLSearchParams(kept).toString()}` : '';
}

/**
 * The line of links between a site's pages, under the page heading; the page shown is not linked. Moving
 * between the dashboard and the funnels keeps the filters.
 */
export function SiteLinks({ siteId, current }: { siteId: string; current: SitePageKey | null }) {
  const filters = filterQuery(useSearch());
  return (
    <nav className="site-meta" aria-label="Site pages">
      <Link to="/sites">All sites</Link>
      {PAGES.filter((p) => p.key !== current).map((p) => (
        <Fragment key={p.key}>
          <span aria-hidden="true"> · </span>
          <Link to={`/sites/${encodeURIComponent(siteId)}${p.path}${FILTERED.includes(p.key) ? filters : ''}`}>{p.label}</Link>
        </Fragment>
      ))}
    </nav>
  );
}
