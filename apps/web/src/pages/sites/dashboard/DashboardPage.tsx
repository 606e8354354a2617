import { useQuery } from '../../../data/useQuery.ts';
import { Link, usePath } from '../../../router.tsx';
import { api } from '../../../trpc.ts';
import { Notice } from '../../../components/Notice.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { DashboardBody } from './DashboardBody.tsx';
import { DashboardControls } from './DashboardControls.tsx';
import { loadCatalogue } from './data.ts';
import { useChoices } from './useChoices.ts';

/** `/sites/<id>/dashboard`: a site's traffic — headline figures, a daily chart and top tables. */
export function DashboardPage() {
  const id = siteIdOf(usePath());
  const site = useQuery(() => api.sites.get.query({ id }));
  const catalogue = useQuery(loadCatalogue);
  const [choices, change] = useChoices();
  const name = site.data?.site.name;
  if (isMissingSite(site.problem)) return <SiteMissing />;

  return (
    <SitesFrame title={name ? `${name} dashboard` : 'Dashboard'} problem={site.problem}>
      {site.problem && <Notice tone="error">{site.problem.title}</Notice>}
      {!site.data && !site.problem && <p className="loading">Loading…</p>}
      {site.data && (
        <div className="site-stack dash">
          <p className="site-meta">
            <Link to="/sites">All sites</Link>
            <span aria-hidden="true"> · </span>
            <Link to={`/sites/${site.data.site.id}`}>Site settings and snippet</Link>
          </p>
          <DashboardControls choices={choices} onChange={change} />
          <DashboardBody siteId={site.data.site.id} choices={choices} catalogue={catalogue.data} />
        </div>
      )}
    </SitesFrame>
  );
}
