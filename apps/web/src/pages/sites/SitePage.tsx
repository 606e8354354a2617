import { useQuery } from '@tanstack/react-query';
import { Notice } from '../../components/Notice.tsx';
import { CannotChange, IfWritable, ReadOnly, useCan } from '../../components/ReadOnly.tsx';
import { toProblem } from '../../problem.ts';
import { usePath } from '../../router.tsx';
import { useTRPC } from '../../trpc.ts';
import { SiteMissing } from './parts/SiteMissing.tsx';
import { SitesFrame } from './parts/SitesFrame.tsx';
import { isMissingSite, siteIdOf } from './parts/siteId.ts';
import { AlertsCard } from './site/AlertsCard.tsx';
import { DangerZoneCard } from './site/DangerZoneCard.tsx';
import { EmailReportsCard } from './site/EmailReportsCard.tsx';
import { ExperimentsCard } from './site/ExperimentsCard.tsx';
import { GoalsCard } from './site/GoalsCard.tsx';
import { HostnamesCard } from './site/HostnamesCard.tsx';
import { InstallCard } from './site/InstallCard.tsx';
import { InternalTrafficCard } from './site/InternalTrafficCard.tsx';
import { KeysCard } from './site/KeysCard.tsx';
import { ShareLinksCard } from './site/ShareLinksCard.tsx';
import { SiteHeader } from './site/SiteHeader.tsx';

/**
 * `/sites/<id>`: everything about one site, a card per concern; each change loads the site again. A role without
 * `sites:write` sees the settings without the controls that change them.
 */
export function SitePage() {
  const id = siteIdOf(usePath());
  const query = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const problem = query.error ? toProblem(query.error) : null;
  const site = query.data?.site;
  const canWrite = useCan('sites:write');
  if (isMissingSite(problem)) return <SiteMissing />;

  return (
    <SitesFrame title={site?.name ?? 'Site'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!site && !problem && <p className="loading">Loading…</p>}
      {site && (
        <ReadOnly when={canWrite === false}>
          <div className="site-stack">
            {canWrite === false && <CannotChange what="this site's settings" />}
            <SiteHeader site={site} />
            <InstallCard siteId={site.id} />
            <HostnamesCard site={site} />
            <KeysCard siteId={site.id} />
            <InternalTrafficCard site={site} />
            <GoalsCard site={site} />
            <ExperimentsCard site={site} />
            <ShareLinksCard siteId={site.id} />
            <EmailReportsCard siteId={site.id} />
            <AlertsCard siteId={site.id} />
            <IfWritable>
              <DangerZoneCard site={site} />
            </IfWritable>
          </div>
        </ReadOnly>
      )}
    </SitesFrame>
  );
}
