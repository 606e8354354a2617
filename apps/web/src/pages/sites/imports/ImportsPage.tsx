import { useQuery } from '@tanstack/react-query';
import { Notice } from '../../../components/Notice.tsx';
import { CannotChange, ReadOnly, useCan } from '../../../components/ReadOnly.tsx';
import { toProblem } from '../../../problem.ts';
import { usePath } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { ImportList } from './ImportList.tsx';
import { NewImport } from './NewImport.tsx';

/** `/sites/<id>/imports`: bring in history from Plausible, Umami or GA4 export files, and follow each import. */
export function ImportsPage() {
  const id = siteIdOf(usePath());
  const trpc = useTRPC();
  const site = useQuery(trpc.sites.get.queryOptions({ id }));
  const problem = site.error ? toProblem(site.error) : null;
  const canWrite = useCan('sites:write');
  if (isMissingSite(problem)) return <SiteMissing />;
  const name = site.data?.site.name;
  return (
    <SitesFrame title={name ? `${name} imports` : 'Imports'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {site.data && (
        <div className="site-stack">
          <SiteLinks siteId={id} current="imports" />
          {canWrite === false ? (
            <CannotChange what="this site's imports" change="start or delete one" />
          ) : (
            <NewImport siteId={id} />
          )}
          <ReadOnly when={canWrite === false}>
            <ImportList siteId={id} />
          </ReadOnly>
        </div>
      )}
    </SitesFrame>
  );
}
