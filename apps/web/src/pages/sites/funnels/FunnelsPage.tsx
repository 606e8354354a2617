import { useQuery } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { ReadOnly, useCan } from '../../../components/ReadOnly.tsx';
import { formatPeriod } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { setSearch, usePath, useSearch } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { choicesToParams, type Filters, parseChoices } from '../dashboard/choices.ts';
import { FilterChips } from '../dashboard/FilterChips.tsx';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { daysParam, patchSearch } from '../parts/searchParams.ts';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { DaysPicker } from '../protection/DaysPicker.tsx';
import { FUNNEL_DAYS, type Funnel, useFunnelResults, useFunnels } from './data.ts';
import { FunnelChart } from './FunnelChart.tsx';
import { FunnelsCard } from './FunnelsCard.tsx';

/** `/sites/<id>/funnels?funnel=&days=&where.<dimension>=`: the site's funnels, the form to add one, and the chosen one's bar chart. */
export function FunnelsPage() {
  const id = siteIdOf(usePath());
  const search = useSearch();
  const days = daysParam(search, FUNNEL_DAYS);
  const site = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const canWrite = useCan('sites:write');
  const list = useFunnels(id);
  const funnels = list.data?.funnels ?? [];
  const asked = new URLSearchParams(search).get('funnel');
  // The funnel in the address, else the first one.
  const selected = funnels.find((f) => f.id === asked)?.id ?? funnels[0]?.id ?? null;
  // The dashboard's filters travel in the address (`where.<dimension>`) and apply here too.
  const choices = parseChoices(search);
  const results = useFunnelResults(id, selected, days, choices.filters);
  const catalogue = useQuery(useTRPC().stats.catalogue.queryOptions());
  const setFilters = (filters: Filters) => setSearch(choicesToParams({ ...choices, filters }, new URLSearchParams(search)));
  const error = site.error ?? list.error;
  const problem = error ? toProblem(error) : null;
  const name = site.data?.site.name;
  if (isMissingSite(problem)) return <SiteMissing />;

  const linkTo = (funnel: string) => {
    const params = new URLSearchParams(search);
    params.set('funnel', funnel);
    return `/sites/${encodeURIComponent(id)}/funnels?${params.toString()}`;
  };
  const choose = (f: Funnel) => patchSearch({ funnel: f.id });
  const shown = results.data && results.data.funnel.id === selected ? results.data : null;

  return (
    <SitesFrame figures title={name ? `${name} funnels` : 'Funnels'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!list.data && !problem && <p className="loading">Loading…</p>}
      {site.data && list.data && (
        <div className="site-stack dash">
          <SiteLinks siteId={id} current="funnels" />
          {selected && (
            <Card
              title={shown ? shown.funnel.name : 'Results'}
              aside={shown && <span className="muted">{formatPeriod(shown.from, shown.to)}</span>}
            >
              <div className="dash-controls">
                <DaysPicker
                  id="funnel-days"
                  days={days}
                  choices={FUNNEL_DAYS}
                  onChange={(d) => patchSearch({ days: String(d) })}
                />
              </div>
              <FilterChips filters={choices.filters} labels={catalogue.data?.dimensionLabels} onChange={setFilters} />
              {results.error && <Notice tone="error">{toProblem(results.error).title}</Notice>}
              {!shown && !results.error && <p className="loading">Loading…</p>}
              {shown && (
                <div aria-busy={results.isFetching}>
                  <FunnelChart results={shown} />
                </div>
              )}
            </Card>
          )}
          <ReadOnly when={canWrite === false}>
            <FunnelsCard siteId={id} funnels={funnels} selected={selected} linkTo={linkTo} onCreated={choose} />
          </ReadOnly>
        </div>
      )}
    </SitesFrame>
  );
}
