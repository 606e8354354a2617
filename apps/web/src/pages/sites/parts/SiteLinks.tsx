import { Fragment } from 'react';
import { Link } from '../../../router.tsx';

export type SitePageKey = 'settings' | 'dashboard' | 'protection' | 'goals' | 'funnels' | 'journeys' | 'search' | 'export';

const PAGES: { key: SitePageKey; label: string; path: string }[] = [
  { key: 'settings', label: 'Site settings and snippet', path: '' },
  { key: 'dashboard', label: 'Dashboard', path: '/dashboard' },
  { key: 'protection', label: 'Protection', path: '/protection' },
  { key: 'goals', label: 'Goals', path: '/goals' },
  { key: 'funnels', label: 'Funnels', path: '/funnels' },
  { key: 'journeys', label: 'Journeys', path: '/journeys' },
  { key: 'search', label: 'Search', path: '/search' },
  { key: 'export', label: 'Export', path: '/export' },
];

/** The line of links between a site's pages, under the page heading; the page shown is not linked. */
export function SiteLinks({ siteId, current }: { siteId: string; current: SitePageKey | null }) {
  return (
    <nav className="site-meta" aria-label="Site pages">
      <Link to="/sites">All sites</Link>
      {PAGES.filter((p) => p.key !== current).map((p) => (
        <Fragment key={p.key}>
          <span aria-hidden="true"> · </span>
          <Link to={`/sites/${encodeURIComponent(siteId)}${p.path}`}>{p.label}</Link>
        </Fragment>
      ))}
    </nav>
  );
}
