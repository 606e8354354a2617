// Every experiment of the site's settings with, per declared variant, the sessions whose first exposure
// showed it and those of them that reached the site's first event goal from that exposure on (statement.ts).
// A variant under 5 sessions has no figures.
// (The full results route, with the choice of goal and the significance test, is its own operation.)
import { type Experiment, JOURNEY_LIMITS, type Journeys } from '@us/shared';
import { percent } from './paths.ts';

export interface ExposureCount {
  experiment: string;
  variant: string;
  sessions: number;
  converted: number | null;
}

export function experimentsOf(
  experiments: readonly Experiment[],
  exposures: readonly ExposureCount[],
  goal: { id: string } | null,
): Journeys['experiments'] {
  return experiments.map((e) => ({
    key: e.key,
    name: e.name ?? null,
    status: e.status,
    goal: goal?.id ?? null,
    variants: e.variants.map((variant) => {
      const x = exposures.find((r) => r.experiment === e.key && r.variant === variant);
      const sessions = x?.sessions ?? 0;
      if (sessions < JOURNEY_LIMITS.minSessions) return { variant, sessions: null, converted: null, rate: null };
      const converted = goal && x?.converted != null ? x.converted : null;
      return { variant, sessions, converted, rate: converted === null ? null : percent(converted, sessions) };
    }),
  }));
}
