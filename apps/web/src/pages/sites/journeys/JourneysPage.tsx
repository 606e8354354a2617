import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatPeriod } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { usePath, useSearch } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { patchSearch } from '../parts/searchParams.ts';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { type JourneyChoices, journeyParams, parseJourneyChoices } from './choices.ts';
import { type Journeys, useJourneys } from './data.ts';
import { ExperimentsList } from './ExperimentsList.tsx';
import { FlowCard } from './FlowCard.tsx';
import { JourneyControls } from './JourneyControls.tsx';
import { PathsCard } from './PathsCard.tsx';
import { VisitsFigures } from './VisitsFigures.tsx';

/** `/sites/<id>/journeys?days=&zoom=&who=&anchor=`: how visitors move through the site. */
export function JourneysPage() {
  const id = siteIdOf(usePath());
  const search = useSearch();
  const choices = useMemo(() => parseJourneyChoices(search), [search]);
  const site = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const journeys = useJourneys(id, choices);
  const siteProblem = site.error ? toProblem(site.error) : null;
  const problem = siteProblem ?? (journeys.error ? toProblem(journeys.error) : null);
  const name = site.data?.site.name;
  if (isMissingSite(siteProblem)) return <SiteMissing />;
  const change = (c: Partial<JourneyChoices>) => patchSearch(journeyParams(c));

  return (
    <SitesFrame figures title={name ? `${name} journeys` : 'Journeys'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!journeys.data && !problem && <p className="loading">Loading…</p>}
      {site.data && (
        <div className="site-stack dash">
          <SiteLinks siteId={id} current="journeys" />
          <JourneyControls choices={choices} onChange={change} />
          {journeys.data && (
            <JourneysBody
              siteId={id}
              journeys={journeys.data}
              busy={journeys.isFetching}
              onAnchor={(anchor) => change({ anchor })}
            />
          )}
        </div>
      )}
    </SitesFrame>
  );
}

function JourneysBody({
  siteId,
  journeys,
  busy,
  onAnchor,
}: {
  siteId: string;
  journeys: Journeys;
  busy: boolean;
  onAnchor: (anchor: string | null) => void;
}) {
  return (
    <div className="site-stack" aria-busy={busy} data-testid="journeys">
      <Card title="Visits and goals" aside={<span className="muted">{formatPeriod(journeys.from, journeys.to)}</span>}>
        {journeys.visits === 0 ? (
          <p className="site-none">
            No visits with steps in this period: install the snippet on your pages, or choose a longer period
            {journeys.who === 'internal' ? ' (your team’s visits count once they use the internal link)' : ''}.
          </p>
        ) : (
          <VisitsFigures journeys={journeys} />
        )}
      </Card>
      <FlowCard journeys={journeys} onAnchor={onAnchor} />
      <PathsCard journeys={journeys} />
      <ExperimentsList siteId={siteId} journeys={journeys} />
      <p className="muted site-small" data-testid="journeys-note">
        {journeys.other.note}
      </p>
    </div>
  );
}
