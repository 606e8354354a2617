import { LANES, type MetricSet, STATS_LIMITS, type StatsCatalogue } from '@us/shared';
import {
  CATALOGUE,
  type MetricSetDef,
  PROPERTY_PATTERN,
  PROPERTY_SETS,
  primaryCount,
  rollupDimensions,
} from '../../analytics/catalogue.ts';
import { TOP_SETS } from './top-dimensions.ts';

/** The public catalogue (GET /v1/stats/catalogue). */
export function publicCatalogue(): StatsCatalogue {
  const labels: Record<string, string> = {};
  const metricSets = Object.fromEntries(
    (Object.entries(CATALOGUE) as [MetricSet, MetricSetDef][]).map(([name, def]) => {
      for (const [d, dim] of Object.entries(def.dimensions)) labels[d] ??= dim.label;
      return [
        name,
        {
          description: def.description,
          defaultLane: def.defaultLane,
          lanes: [...LANES],
          dimensions: Object.keys(def.dimensions),
          filters: rollupDimensions(name),
          counts: Object.keys(def.counts),
          defaultSort: primaryCount(name),
        },
      ];
    }),
  ) as StatsCatalogue['metricSets'];
  return {
    metricSets,
    topDimensions: { ...TOP_SETS },
    dimensionLabels: labels,
    dimensionPatterns: [
      {
        pattern: PROPERTY_PATTERN,
        metricSets: [...PROPERTY_SETS],
        description:
          'A custom property the page script sent (by=prop:plan, where.prop:plan=pro): a key of 1-64 letters, digits, _, -, . or spaces, case kept; keys seen lately at GET /v1/sites/{id}/properties. The last 90 days from raw rows; older days only for the keys the site keeps (keptProperties in its settings), from the day it kept them.',
      },
    ],
    limits: {
      batch: STATS_LIMITS.batch,
      defaultDays: STATS_LIMITS.defaultDays,
      rawDays: STATS_LIMITS.rawDays,
      maxRows: STATS_LIMITS.maxRows,
    },
  };
}
