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
import { ConnectionsCard } from './ConnectionsCard.tsx';
import { useSearch, useSearchWeeks } from './data.ts';
import { TopCard } from './TopCard.tsx';
import { WeeksCard } from './WeeksCard.tsx';

/** `/sites/<id>/search`: the two search sources, their connection state, and the weekly figures. */
export function SearchPage() {
  const id = siteIdOf(usePath());
  const site = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const search = useSearch(id);
  const weeks = useSearchWeeks(id);
  const error = site.error ?? search.error ?? weeks.error;
  const problem = error ? toProblem(error) : null;
  const canWrite = useCan('search:write');
  if (isMissingSite(problem)) return <SiteMissing />;
  const name = site.data?.site.name;
  return (
    <SitesFrame title={name ? `${name} search` : 'Search'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!search.data && !problem && <p className="loading">Loading…</p>}
      {site.data && search.data && (
        <div className="site-stack">
          <SiteLinks siteId={id} current="search" />
          {canWrite === false && (
            <CannotChange what="this site's search connections and figures" change="connect or disconnect them" />
          )}
          <ReadOnly when={canWrite === false}>
            <ConnectionsCard siteId={id} search={search.data} />
          </ReadOnly>
          {weeks.data && <WeeksCard data={weeks.data} />}
          {weeks.data && <TopCard data={weeks.data} />}
        </div>
      )}
    </SitesFrame>
  );
}
