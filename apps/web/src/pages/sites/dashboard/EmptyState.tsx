import { useQueryClient } from '@tanstack/react-query';
import { Link } from '../../../router.tsx';
import { InstallCard } from '../site/InstallCard.tsx';
import { useDashboardBase } from './base.tsx';

const RELOAD_AFTER_STORE_MS = 2_500;

/**
 * No figures at all in the range: most likely the snippet is not on the site's pages yet (then its install
 * steps); with filters, nothing matches them.
 */
export function EmptyState({
  siteId,
  crawlers,
  filtered,
  installed,
}: {
  siteId: string;
  crawlers: boolean;
  filtered: boolean;
  installed: boolean;
}) {
  const queryClient = useQueryClient();
  const { shared } = useDashboardBase(siteId);
  // A site nothing has reached yet: the install steps, waiting live for the first pageview; once it
  // arrives, the figures load by themselves: now, and again once the write buffer (flushed every second)
  // has surely stored the report's rows.
  if (!installed && !crawlers && !filtered && !shared) {
    const reload = () => {
      void queryClient.invalidateQueries();
      setTimeout(() => void queryClient.invalidateQueries(), RELOAD_AFTER_STORE_MS);
    };
    return <InstallCard siteId={siteId} onReceived={reload} />;
  }
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
        <strong>No data in this range yet</strong> —{' '}
        {shared ? (
          'choose a longer range.'
        ) : (
          <>
            <Link to={`/sites/${siteId}`}>install the snippet</Link>
            {crawlers ? ' (crawler requests come from the edge worker or proxy mode)' : ''}, or choose a longer range.
          </>
        )}
      </p>
    </div>
  );
}
