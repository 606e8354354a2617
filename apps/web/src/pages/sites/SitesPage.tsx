import { Notice } from '../../components/Notice.tsx';
import { useQuery } from '../../data/useQuery.ts';
import { api } from '../../trpc.ts';
import { CreateSiteCard } from './list/CreateSiteCard.tsx';
import { SitesCard } from './list/SitesCard.tsx';
import { SitesFrame } from './parts/SitesFrame.tsx';

/** `/sites`: the workspace's sites, and a form to add one. */
export function SitesPage() {
  const sites = useQuery(() => api.sites.list.query());
  const list = sites.data?.sites;
  return (
    <SitesFrame title="Sites" problem={sites.problem}>
      <div className="site-stack">
        {sites.problem && <Notice tone="error">{sites.problem.title}</Notice>}
        {sites.loading && !list && <p className="loading">Loading…</p>}
        {list && <SitesCard sites={list} />}
        <CreateSiteCard first={list?.length === 0} />
      </div>
    </SitesFrame>
  );
}
