import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { rememberDashboard } from '../../../data/landing.ts';
import { useMe } from '../../../data/useMe.ts';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { usePath } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { DashboardBody } from './DashboardBody.tsx';
import { NO_VALUE } from './choices.ts';
import { DashboardControls } from './DashboardControls.tsx';
import { FilterChips } from './FilterChips.tsx';
import { LiveParts } from '../live/LiveParts.tsx';
import { useChoices } from './useChoices.ts';

/** `/sites/<id>/dashboard`: a site's traffic — headline figures, a daily chart and top tables. */
export function DashboardPage() {
  const id = siteIdOf(usePath());
  const trpc = useTRPC();
  const site = useQuery(trpc.sites.get.queryOptions({ id }));
  const catalogue = useQuery(trpc.stats.catalogue.queryOptions());
  const [choices, change] = useChoices();
  const problem = site.error ? toProblem(site.error) : null;
  const userId = useMe().data?.user?.id;
  const loadedId = site.data?.site.id;
  // The next sign-in lands here again (data/landing.ts).
  useEffect(() => {
    if (userId && loadedId) rememberDashboard(userId, `/sites/${encodeURIComponent(loadedId)}/dashboard`);
  }, [userId, loadedId]);
  const name = site.data?.site.name;
  // A clicked row adds its filter to the others (a new history entry, so Back removes it again).
  const addFilter = (dimension: string, value: string | null) =>
    change({ filters: { ...choices.filters, [dimension]: value === null || value === '' ? NO_VALUE : value } });
  if (isMissingSite(problem)) return <SiteMissing />;

  return (
    <SitesFrame figures title={name ? `${name} dashboard` : 'Dashboard'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!site.data && !problem && <p className="loading">Loading…</p>}
      {site.data && (
        <div className="site-stack dash">
          <SiteLinks siteId={site.data.site.id} current="dashboard" />
          <DashboardControls choices={choices} onChange={change} />
          <LiveParts siteId={site.data.site.id} part="figure" />
          <FilterChips
            filters={choices.filters}
            labels={catalogue.data?.dimensionLabels}
            onChange={(filters) => change({ filters })}
          />
          <DashboardBody
            siteId={site.data.site.id}
            choices={choices}
            catalogue={catalogue.data}
            onFilter={addFilter}
            installed={site.data.site.lastSeenAt !== null}
            footer={<LiveParts siteId={site.data.site.id} part="list" />}
          />
        </div>
      )}
    </SitesFrame>
  );
}
