import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../../trpc.ts';
import { LiveParts } from '../live/LiveParts.tsx';
import { NO_VALUE } from './choices.ts';
import { DashboardBody } from './DashboardBody.tsx';
import { DashboardControls } from './DashboardControls.tsx';
import { FilterChips } from './FilterChips.tsx';
import { SegmentsBar } from './notes/SegmentsBar.tsx';
import { todayIn } from './period.ts';
import { useChoices } from './useChoices.ts';

/**
 * A site's dashboard under its links: the choices (lane, range, compare), visitors now, the filters, the
 * figures and the last pageviews. The same for the site's owners and for a shared link's viewers, who do not
 * get segments or annotations (the API would refuse a share link's viewers).
 */
export function DashboardFigures({
  siteId,
  timezone,
  installed,
  editable = false,
}: {
  siteId: string;
  /** The site's time zone: where today, yesterday and stepping count from. */
  timezone: string;
  installed: boolean;
  /** The site's own dashboard (not a shared link's): segments to apply and save, annotations to add. */
  editable?: boolean;
}) {
  const catalogue = useQuery(useTRPC().stats.catalogue.queryOptions());
  const [choices, change] = useChoices(todayIn(timezone));
  // A clicked row adds its filter to the others (a new history entry, so Back removes it again).
  const addFilter = (dimension: string, value: string | null) =>
    change({ filters: { ...choices.filters, [dimension]: value === null || value === '' ? NO_VALUE : value } });
  return (
    <>
      <DashboardControls choices={choices} onChange={change} />
      <LiveParts siteId={siteId} part="figure" />
      <FilterChips
        filters={choices.filters}
        labels={catalogue.data?.dimensionLabels}
        onChange={(filters) => change({ filters })}
      />
      {editable && <SegmentsBar siteId={siteId} filters={choices.filters} onApply={(filters) => change({ filters })} />}
      <DashboardBody
        siteId={siteId}
        choices={choices}
        catalogue={catalogue.data}
        onFilter={addFilter}
        installed={installed}
        annotate={editable}
        footer={<LiveParts siteId={siteId} part="list" />}
      />
    </>
  );
}
