// From the statement's session groups to the answer: visits and goal rates, the folded flow, common
// paths and experiments. Every figure of a group under 5 sessions is left out here (see fold.ts).
import { type Experiment, JOURNEY_LIMITS, type Journeys } from '@us/shared';
import { experimentsOf } from './experiments.ts';
import { foldFlow, type Sequence } from './fold.ts';
import { firstEventGoal, type GoalDef } from './goals.ts';
import { commonPaths, percent } from './paths.ts';
import type { JourneyRow } from './statement.ts';

const MIN = JOURNEY_LIMITS.minSessions;

export type JourneyFigures = Pick<Journeys, 'visits' | 'goals' | 'flow' | 'paths' | 'experiments' | 'other'>;

export function journeyAnswer(
  rows: readonly JourneyRow[],
  opts: { goals: readonly GoalDef[]; experiments: readonly Experiment[]; anchor: string | null },
): JourneyFigures {
  const { goals, anchor } = opts;
  const groups = rows.filter((r) => r.part === 'p');
  const visits = groups.reduce((n, r) => n + r.sessions, 0);
  const reachedOf = (r: JourneyRow) => goals.map((_, i) => (r.goals?.[i] ? r.sessions : 0));
  const reached = goals.map((_, i) => groups.reduce((n, r) => n + (r.goals?.[i] ? r.sessions : 0), 0));
  const notes: string[] = [];

  // Without an anchor, steps count from 0 at the first step; with one, from 0 at the anchor.
  const sequences: Sequence[] = [];
  if (anchor === null) {
    for (const r of groups) if (r.steps?.length) sequences.push({ labels: r.steps, first: 0, sessions: r.sessions });
  } else {
    for (const r of groups) {
      if (r.win?.length) sequences.push({ labels: r.win, first: -(r.pre ?? 0), sessions: r.sessions });
    }
  }
  const inFlow = sequences.reduce((n, s) => n + s.sessions, 0);
  let flow: Journeys['flow'] = { nodes: [], links: [] };
  if (inFlow < MIN) {
    notes.push(
      anchor === null
        ? `Fewer than ${MIN} sessions have steps here: the flow is left empty.`
        : `Fewer than ${MIN} sessions reach the anchor: the flow is left empty and no figures are given for it.`,
    );
  } else {
    const f = foldFlow(sequences, 0);
    flow = { nodes: f.nodes, links: f.links };
    if (f.folded > 0) {
      notes.push(
        `${f.folded} session steps are shown as (other): steps that fewer than ${MIN} sessions took from the same neighbouring step.`,
      );
    }
  }

  const { paths, unlisted } = commonPaths(
    groups.map((r) => ({ steps: r.steps ?? [], sessions: r.sessions, reached: reachedOf(r) })),
    goals,
    { sessions: visits, reached },
  );
  if (unlisted > 0) {
    notes.push(
      `${unlisted} sessions with steps follow paths not listed (under ${MIN} sessions each, or beyond the top ${JOURNEY_LIMITS.paths}).`,
    );
  }

  const goalIndex = firstEventGoal(goals);
  const exposures = rows
    .filter((r) => r.part === 'x')
    .map((r) => ({
      experiment: r.experiment as string,
      variant: r.variant as string,
      sessions: r.sessions,
      converted: r.converted,
    }));
  const experiments = experimentsOf(opts.experiments, exposures, goalIndex >= 0 ? (goals[goalIndex] ?? null) : null);

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
