// From the session groups to the answer: visits and goal rates, the folded flow, common paths and
// experiments. Every figure of a group under 5 sessions is left out here (see fold.ts).
import { type Experiment, JOURNEY_LIMITS, type Journeys } from '@us/shared';
import { experimentsOf } from './experiments.ts';
import { foldFlow } from './fold.ts';
import { firstEventGoal, type GoalDef } from './goals.ts';
import { ANCHOR_AT, type GroupColumns, NONE, WIDTH } from './groups.ts';
import { commonPaths, percent } from './paths.ts';

const MIN = JOURNEY_LIMITS.minSessions;

export type JourneyFigures = Pick<Journeys, 'visits' | 'goals' | 'flow' | 'paths' | 'experiments' | 'other'>;

export function journeyAnswer(
  cols: GroupColumns,
  opts: { goals: readonly GoalDef[]; experiments: readonly Experiment[]; anchor: string | null },
): JourneyFigures {
  const { goals, anchor } = opts;
  // Sessions per combination of goal flags first: there are few combinations and many groups.
  const perFlag = new Float64Array(cols.flagNames.length);
  let visits = 0;
  for (let g = 0; g < cols.count; g++) {
    const s = cols.sessions[g] as number;
    visits += s;
    perFlag[cols.flags[g] as number] = (perFlag[cols.flags[g] as number] as number) + s;
  }
  const reached = goals.map(() => 0);
  cols.reachedGoals().forEach((hit, f) => {
    for (const i of hit) reached[i] = (reached[i] as number) + (perFlag[f] as number);
  });
  const notes: string[] = [];

  // Without an anchor, steps count from 0 at the first step; with one, from 0 at the anchor.
  const slots = anchor === null ? cols.steps : (cols.win as Int32Array);
  const centre = anchor === null ? 0 : ANCHOR_AT;
  let inFlow = 0;
  for (let g = 0; g < cols.count; g++) if (slots[g * WIDTH + centre] !== NONE) inFlow += cols.sessions[g] as number;
  let flow: Journeys['flow'] = { nodes: [], links: [] };
  if (inFlow < MIN) {
    notes.push(
      anchor === null
        ? `Fewer than ${MIN} sessions have steps here: the flow is left empty.`
        : `Fewer than ${MIN} sessions reach the anchor: the flow is left empty and no figures are given for it.`,
    );
  } else {
    const f = foldFlow({ names: cols.names, count: cols.count, slots, sessions: cols.sessions }, centre);
    flow = { nodes: f.nodes, links: f.links };
    if (f.folded > 0) {
      notes.push(
        `${f.folded} session steps are shown as (other): steps that fewer than ${MIN} sessions took from the same neighbouring step.`,
      );
    }
  }

  const { paths, unlisted } = commonPaths(cols, goals, { sessions: visits, reached });
  if (unlisted > 0) {
    notes.push(
      `${unlisted} sessions with steps follow paths not listed (under ${MIN} sessions each, or beyond the top ${JOURNEY_LIMITS.paths}).`,
    );
  }

  const goalIndex = firstEventGoal(goals);
  const experiments = experimentsOf(
    opts.experiments,
    [...cols.exposures.values()],
    goalIndex >= 0 ? (goals[goalIndex] ?? null) : null,
  );

  notes.push(`Groups of fewer than ${MIN} sessions are never named; (other) and unlisted paths are what remains.`);
  return {
    visits,
    goals: goals.map((g, i) => {
      const n = reached[i] ?? 0;
      return visits < MIN
        ? { id: g.id, name: g.name, sessions: null, rate: null }
        : { id: g.id, name: g.name, sessions: n, rate: percent(n, visits) };
    }),
    flow,
    paths,
    experiments,
    other: { note: notes.join(' ') },
  };
}
