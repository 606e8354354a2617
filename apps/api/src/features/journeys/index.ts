// The journeys wing's public surface: what other wings may use (the layering lint holds them to this file).
export { type DayJourneys, dayJourneys } from './day-journeys.ts';
