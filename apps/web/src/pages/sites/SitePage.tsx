import { useState } from 'react';
import { Notice } from '../../components/Notice.tsx';
import { useQuery } from '../../data/useQuery.ts';
import { usePath } from '../../router.tsx';
import { api } from '../../trpc.ts';
import { SiteMissing } from './parts/SiteMissing.tsx';
import { isMissingSite, siteIdOf } from './parts/siteId.ts';
import { SitesFrame } from './parts/SitesFrame.tsx';
import { DangerZoneCard } from './site/DangerZoneCard.tsx';
import { ExperimentsCard } from './site/ExperimentsCard.tsx';
import { GoalsCard } from './site/GoalsCard.tsx';
import { HostnamesCard } from './site/HostnamesCard.tsx';
import { InstallCard } from './site/InstallCard.tsx';
import { InternalTrafficCard } from './site/InternalTrafficCard.tsx';
import { KeysCard } from './site/KeysCard.tsx';
import { SiteHeader } from './site/SiteHeader.tsx';

/** `/sites/<id>`: everything about one site, a card per concern. */
export function SitePage() {
  const id = siteIdOf(usePath());
  const query = useQuery(() => api.sites.get.query({ id }));
  // Rotating the public key changes the snippet: the install card is made again to fetch it.
  const [publicKeyVersion, setPublicKeyVersion] = useState(0);
  const site = query.data?.site;
  if (isMissingSite(query.problem)) return <SiteMissing />;

  return (
    <SitesFrame title={site?.name ?? 'Site'} problem={query.problem}>
      {query.problem && <Notice tone="error">{query.problem.title}</Notice>}
      {!site && !query.problem && <p className="loading">Loading…</p>}
      {site && (
        <div className="site-stack">
          <SiteHeader site={site} onChanged={query.reload} />
          <InstallCard key={publicKeyVersion} siteId={site.id} />
          <HostnamesCard site={site} onChanged={query.reload} />
          <KeysCard siteId={site.id} onPublicKeyRotated={() => setPublicKeyVersion((v) => v + 1)} />
          <InternalTrafficCard site={site} />
          <GoalsCard site={site} onChanged={query.reload} />
          <ExperimentsCard site={site} onChanged={query.reload} />
          <DangerZoneCard site={site} />
        </div>
      )}
    </SitesFrame>
  );
}
