import { Link } from '../../../router.tsx';

/**
 * No figures at all in the range: most likely the snippet is not on the site's pages yet; with filters,
 * nothing matches them.
 */
export function EmptyState({ siteId, crawlers, filtered }: { siteId: string; crawlers: boolean; filtered: boolean }) {
  if (filtered) {
    return (
      <div className="card dash-empty">
        <p>
          <strong>Nothing matches these filters in this range</strong> — remove a filter or choose a longer range.
        </p>
      </div>
    );
  }
  return (
    <div className="card dash-empty">
      <p>
        <strong>No data in this range yet</strong> — <Link to={`/sites/${siteId}`}>install the snippet</Link>
        {crawlers ? ' (crawler requests come from the edge worker or proxy mode)' : ''}, or choose a longer range.
      </p>
    </div>
  );
}
