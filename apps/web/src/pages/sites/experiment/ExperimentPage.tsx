import { useQuery } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatPeriod } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { Link, usePath, useQueryParam, useSearch } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { daysParam, patchSearch } from '../parts/searchParams.ts';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { DaysPicker } from '../protection/DaysPicker.tsx';
import { EXPERIMENT_DAYS, type ExperimentResults, experimentKeyOf, useExperimentResults } from './data.ts';
import { GoalPicker } from './GoalPicker.tsx';
import { VariantCards } from './VariantCards.tsx';
import { VerdictCard } from './VerdictCard.tsx';

/** `/sites/<id>/experiments/<key>?goal=&days=`: one A/B experiment's variants, p, interval and verdict. */
export function ExperimentPage() {
  const path = usePath();
  const id = siteIdOf(path);
  const key = experimentKeyOf(path);
  const days = daysParam(useSearch(), EXPERIMENT_DAYS);
  const goal = useQueryParam('goal');
  const site = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const results = useExperimentResults(id, key, days, goal);
  const siteProblem = site.error ? toProblem(site.error) : null;
  const problem = siteProblem ?? (results.error ? toProblem(results.error) : null);
  if (isMissingSite(siteProblem)) return <SiteMissing />;
  const name = results.data?.name ?? key;

  return (
    <SitesFrame figures title={`Experiment ${name}`}>
      {problem && (
        <Notice tone="error">
          {problem.title}
          {problem.status === 404 && (
            <>
              {' '}
              <Link to={`/sites/${encodeURIComponent(id)}`}>See the site’s experiments</Link>
            </>
          )}
        </Notice>
      )}
      {!results.data && !problem && <p className="loading">Loading…</p>}
      {site.data && (
        <div className="site-stack dash">
          <SiteLinks siteId={id} current={null} />
          <div className="dash-controls">
            <GoalPicker
              goals={site.data.site.settings.goals}
              value={goal ?? results.data?.goal?.id ?? ''}
              onChange={(g) => patchSearch({ goal: g || null })}
            />
            <DaysPicker
              id="experiment-days"
              days={days}
              choices={EXPERIMENT_DAYS}
              onChange={(d) => patchSearch({ days: String(d) })}
            />
          </div>
          {results.data && <ExperimentBody results={results.data} busy={results.isFetching} />}
        </div>
      )}
    </SitesFrame>
  );
}

function ExperimentBody({ results, busy }: { results: ExperimentResults; busy: boolean }) {
  return (
    <div className="site-stack" aria-busy={busy} data-testid="experiment-results">
      <VerdictCard verdict={results.verdict} comparison={results.comparison} />
      <Card
        title="Variants"
        aside={
          <span className="muted">
            <code>{results.key}</code> · {results.status} · {formatPeriod(results.from, results.to)}
          </span>
        }
      >
        <p className="card-intro">
          People sessions shown each variant, and those that reached{' '}
          {results.goal ? <strong>{results.goal.name}</strong> : 'the goal'} in the same session.
        </p>
        <VariantCards variants={results.variants} goalName={results.goal?.name ?? null} />
      </Card>
    </div>
  );
}
