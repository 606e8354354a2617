import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Notice } from '../../../components/Notice.tsx';
import { rememberDashboard } from '../../../data/landing.ts';
import { useMe } from '../../../data/useMe.ts';
import { toProblem } from '../../../problem.ts';
import { usePath } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { DashboardFigures } from './DashboardFigures.tsx';

/** `/sites/<id>/dashboard`: a site's traffic — headline figures, a daily chart and top tables. */
export function DashboardPage() {
  const id = siteIdOf(usePath());
  const trpc = useTRPC();
  const site = useQuery(trpc.sites.get.queryOptions({ id }));
  // Asked at once, beside the site (the figures below need it too: React Query shares the answer).
  useQuery(trpc.stats.catalogue.queryOptions());
  const problem = site.error ? toProblem(site.error) : null;
  const userId = useMe().data?.user?.id;
  const loadedId = site.data?.site.id;
  // The next sign-in lands here again (data/landing.ts).
  useEffect(() => {
    if (userId && loadedId) rememberDashboard(userId, `/sites/${encodeURIComponent(loadedId)}/dashboard`);
  }, [userId, loadedId]);
  const name = site.data?.site.name;
  if (isMissingSite(problem)) return <SiteMissing />;

  return (
    <SitesFrame figures title={name ? `${name} dashboard` : 'Dashboard'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!site.data && !problem && <p className="loading">Loading…</p>}
      {site.data && (
        <div className="site-stack dash">
          <SiteLinks siteId={site.data.site.id} current="dashboard" />
          <DashboardFigures
            siteId={site.data.site.id}
            timezone={site.data.site.timezone}
            installed={site.data.site.lastSeenAt !== null}
            editable
          />
        </div>
      )}
    </SitesFrame>
  );
}
