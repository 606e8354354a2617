// One UTC day's journeys as a whole (an export writes every day of its range: features/export): per
// zoom, the session groups of the human lane without an anchor, as the per-day store holds them (days.ts:
// read when stored and current, else computed and stored first, as the hourly job does). Groups are
// plain figures, before any k-anonymity: the answer applies that to sums over a range.
import type { JourneyZoom } from '@us/shared';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { readSettings } from '../sites/index.ts';
import { eachJourneyGroup } from './days.ts';
import { firstEventGoal, goalDefs } from './goals.ts';
import { abOf } from './statement.ts';

export interface DayJourneys {
  day: string;
  zoom: JourneyZoom;
  who: 'human';
  /** Sessions grouped by their first steps (at most 5) and the goals they reached (goal ids). */
  paths: { steps: string[]; sessions: number; goals: string[] }[];
  /** Sessions first exposed to each experiment's variant, how many reached its goal from then on (null: no event goal). */
  experiments: { key: string; variant: string; sessions: number; converted: number | null }[];
}

/** The journeys of one UTC `day` of the site at `zoom`; `settings` are the site's stored settings. */
export async function dayJourneys(
  ctx: SiteCtx,
  settings: Record<string, unknown> | null,
  day: string,
  zoom: JourneyZoom,
): Promise<DayJourneys> {
  const { goals: siteGoals, experiments } = readSettings(settings);
  const goals = goalDefs(siteGoals);
  const q = {
    range: { from: day, to: day },
    zoom,
    who: 'human' as const,
    anchor: null,
    goals,
    convertedGoal: firstEventGoal(goals) + 1,
    ...abOf(experiments),
  };
  const out: DayJourneys = { day, zoom, who: 'human', paths: [], experiments: [] };
  // One day: the fill budget never refuses it.
  const budget = { budgetMs: Number.POSITIVE_INFINITY };
  await eachJourneyGroup(
    ctx,
    q,
    [day],
    (g) => {
      if (g[0] === 'x') out.experiments.push({ key: g[1], variant: g[2], sessions: g[3], converted: g[4] });
      else {
        const reached = goals.filter((_, i) => g[2][i] === '1').map((goal) => goal.id);
        out.paths.push({ steps: g[1] ?? [], sessions: g[3], goals: reached });
      }
    },
    budget,
  );
  return out;
}
