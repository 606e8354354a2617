import { useQuery } from '@tanstack/react-query';
import { Notice } from '../../components/Notice.tsx';
import { CannotChange, useCan } from '../../components/ReadOnly.tsx';
import { toProblem } from '../../problem.ts';
import { useTRPC } from '../../trpc.ts';
import { CreateSiteCard } from './list/CreateSiteCard.tsx';
import { SitesCard } from './list/SitesCard.tsx';
import { SitesFrame } from './parts/SitesFrame.tsx';

/** `/sites`: the workspace's sites, and a form to add one (for a role that may). */
export function SitesPage() {
  const sites = useQuery(useTRPC().sites.list.queryOptions());
  const list = sites.data?.sites;
  const canWrite = useCan('sites:write');
  return (
    <SitesFrame title="Sites">
      <div className="site-stack">
        {sites.isError && <Notice tone="error">{toProblem(sites.error).title}</Notice>}
        {sites.isPending && <p className="loading">Loading…</p>}
        {list && <SitesCard sites={list} />}
        {canWrite === false ? (
          <CannotChange what="the workspace's sites" change="add one" />
        ) : (
          <CreateSiteCard first={list?.length === 0} />
        )}
      </div>
    </SitesFrame>
  );
}
