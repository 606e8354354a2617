import { useState } from 'react';
import { Notice } from '../../components/Notice.tsx';
import { useQuery } from '../../data/useQuery.ts';
import { Link, usePath } from '../../router.tsx';
import { api } from '../../trpc.ts';
import { SitesFrame } from './parts/SitesFrame.tsx';
import { DangerZoneCard } from './site/DangerZoneCard.tsx';
import { ExperimentsCard } from './site/ExperimentsCard.tsx';
import { GoalsCard } from './site/GoalsCard.tsx';
import { HostnamesCard } from './site/HostnamesCard.tsx';
import { InstallCard } from './site/InstallCard.tsx';
import { InternalTrafficCard } from './site/InternalTrafficCard.tsx';
import { KeysCard } from './site/KeysCard.tsx';
import { SiteHeader } from './site/SiteHeader.tsx';

/** The site id of `/sites/<id>`. */
function siteIdOf(path: string): string {
  const segment = path.slice('/sites/'.length).split('/')[0] ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `/sites/<id>`: everything about one site, a card per concern. */
export function SitePage() {
  const id = siteIdOf(usePath());
  const query = useQuery(() => api.sites.get.query({ id }));
  // Rotating the public key changes the snippet: the install card is made again to fetch it.
  const [publicKeyVersion, setPublicKeyVersion] = useState(0);
  const site = query.data?.site;
  // A malformed id is as unknown as a deleted site.
  const missing = query.problem?.status === 404 || (query.problem?.status === 400 && query.problem.field === 'id');

  if (missing) {
    return (
      <SitesFrame title="No such site" problem={null}>
        <div className="card site-missing">
          <p>
            <strong>No such site in this workspace.</strong> It may have been deleted, or it belongs to another workspace: switch
            workspaces in the header to look there.
          </p>
          <p>
            <Link to="/sites">See all sites of this workspace</Link>
          </p>
        </div>
      </SitesFrame>
    );
  }

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
