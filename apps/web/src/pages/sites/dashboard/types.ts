import type { RouterOutputs } from '@us/api';

/** The stats answers as the API gives them (schemas in packages/shared/src/schemas/stats.ts). */
export type Summary = RouterOutputs['stats']['summary'];
export type SummaryMeasure = Summary['measures']['sessions'];
export type MeasureName = keyof Summary['measures'];
export type TopTable = RouterOutputs['stats']['top'];
export type TopRow = TopTable['rows'][number];
export type BatchResult = RouterOutputs['stats']['batch'];
export type StatsResult = Exclude<BatchResult[string], { error: unknown }>;
export type StatsRefusal = Extract<BatchResult[string], { error: unknown }>;
export type Catalogue = RouterOutputs['stats']['catalogue'];
export type Lane = StatsResult['lane'];

/** A tone of a change: green when good, red when bad, grey when about the same or unknown. */
export type Tone = SummaryMeasure['tone'];
