import { useQuery } from '@tanstack/react-query';
import { Notice } from '../../../components/Notice.tsx';
import { formatCount, formatPeriod } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { usePath, useSearch } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { daysParam, patchSearch } from '../parts/searchParams.ts';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { DaysPicker } from '../protection/DaysPicker.tsx';
import { GOAL_DAYS, type GoalResults, useGoalResults } from './data.ts';
import { GoalCard } from './GoalCard.tsx';
import { NoCompletions, NoGoals } from './GoalsEmpty.tsx';

/** `/sites/<id>/goals?days=`: per goal its completions, conversion rate and completions per day. */
export function GoalsPage() {
  const id = siteIdOf(usePath());
  const days = daysParam(useSearch(), GOAL_DAYS);
  const site = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const results = useGoalResults(id, days);
  const error = site.error ?? results.error;
  const problem = error ? toProblem(error) : null;
  const name = site.data?.site.name;
  if (isMissingSite(problem)) return <SiteMissing />;

  return (
    <SitesFrame figures title={name ? `${name} goals` : 'Goals'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!results.data && !problem && <p className="loading">Loading…</p>}
      {site.data && (
        <div className="site-stack dash">
          <SiteLinks siteId={id} current="goals" />
          <div className="dash-controls">
            <DaysPicker id="goals-days" days={days} choices={GOAL_DAYS} onChange={(d) => patchSearch({ days: String(d) })} />
            {results.data && (
              <span className="muted">
                {formatPeriod(results.data.from, results.data.to)}
                {results.data.visits !== null && <> · {formatCount(results.data.visits)} visits</>}
              </span>
            )}
          </div>
          {results.data && <GoalsBody siteId={id} days={days} results={results.data} busy={results.isFetching} />}
        </div>
      )}
    </SitesFrame>
  );
}

function GoalsBody({ siteId, days, results, busy }: { siteId: string; days: number; results: GoalResults; busy: boolean }) {
  if (results.goals.length === 0) return <NoGoals siteId={siteId} />;
  const reached = results.goals.some((g) => g.completions > 0);
  return (
    <div className="site-stack" aria-busy={busy} data-testid="goal-results">
      {results.coverage.note && <Notice tone="info">{results.coverage.note}</Notice>}
      {!reached && <NoCompletions days={days} />}
      {results.goals.map((g) => (
        <GoalCard key={g.id} goal={g} from={results.from} to={results.to} />
      ))}
    </div>
  );
}
