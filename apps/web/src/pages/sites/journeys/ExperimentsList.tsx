import { Card } from '../../../components/Card.tsx';
import { formatCount, formatPercent } from '../../../lib/format.ts';
import { Link } from '../../../router.tsx';
import type { Journeys } from './data.ts';

/** Every A/B experiment of the site with its variants in brief, each linking to its results page. */
export function ExperimentsList({ siteId, journeys }: { siteId: string; journeys: Journeys }) {
  return (
    <Card title="Experiments">
      {journeys.experiments.length === 0 ? (
        <p className="site-none">
          No experiments yet: <Link to={`/sites/${encodeURIComponent(siteId)}`}>add one on the site’s page</Link> and mark your
          pages with <code>data-exp="key:variant"</code>.
        </p>
      ) : (
        <ul className="journey-experiments" aria-label="Experiments">
          {journeys.experiments.map((e) => (
            <li key={e.key}>
              <Link to={`/sites/${encodeURIComponent(siteId)}/experiments/${encodeURIComponent(e.key)}`}>{e.name ?? e.key}</Link>{' '}
              <span className="muted">({e.status})</span>
              <span className="journey-variants">
                {e.variants.length === 0
                  ? ' no sessions shown a variant yet'
                  : e.variants
                      .map((v) =>
                        v.sessions === null
                          ? `${v.variant}: fewer than 5 sessions`
                          : `${v.variant}: ${formatCount(v.sessions)} sessions${v.rate === null ? '' : `, ${formatPercent(v.rate)}`}`,
                      )
                      .join(' · ')}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
