import { Card } from '../../../components/Card.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import type { Site } from '../types.ts';
import { InternalLinkSection } from './InternalLinkSection.tsx';
import { InternalNetworksForm } from './InternalNetworksForm.tsx';

/** Your team's own visits, kept apart from real visitors: by network, or by a link that marks a browser. */
export function InternalTrafficCard({ site }: { site: Site }) {
  return (
    <Card title="Internal traffic">
      <p className="card-intro">
        Visits from your team count as internal, apart from your visitors. Name the networks of your offices, or open the internal
        link in each browser of the team.
      </p>
      <InternalNetworksForm siteId={site.id} initial={site.settings.internalNetworks} />
      <IfWritable>
        <InternalLinkSection site={site} />
      </IfWritable>
    </Card>
  );
}
