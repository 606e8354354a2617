import { useQuery } from '@tanstack/react-query';
import { Notice } from '../../../../components/Notice.tsx';
import { toProblem } from '../../../../problem.ts';
import { usePath } from '../../../../router.tsx';
import { useTRPC } from '../../../../trpc.ts';
import { SiteLinks } from '../../parts/SiteLinks.tsx';
import { SiteMissing } from '../../parts/SiteMissing.tsx';
import { SitesFrame } from '../../parts/SitesFrame.tsx';
import { isMissingSite, siteIdOf } from '../../parts/siteId.ts';
import { FullTableView } from './FullTableView.tsx';

/** `/sites/<id>/dashboard/<dimension>`: one of the dashboard's tables in full, for the site's owners. */
export function FullTablePage() {
  const path = usePath();
  const id = siteIdOf(path);
  const site = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const problem = site.error ? toProblem(site.error) : null;
  if (isMissingSite(problem)) return <SiteMissing />;
  return (
    <FullTableView
      siteId={id}
      siteName={site.data?.site.name}
      timezone={site.data?.site.timezone}
      dimension={decodeURIComponent(path.split('/')[4] ?? '')}
      frame={(title, body) => (
        <SitesFrame figures title={title}>
          {problem && <Notice tone="error">{problem.title}</Notice>}
          <div className="site-stack dash">
            <SiteLinks siteId={id} current={null} />
            {body}
          </div>
        </SitesFrame>
      )}
    />
  );
}
